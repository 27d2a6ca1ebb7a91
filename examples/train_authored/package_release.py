"""Two packages' latest releases, each resolved to its Python requirement (en, parallel_multi_hop)."""


_PACKAGE = {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$"}

FIELDS = {
    "domain": "software packages",
    "language": "en",
    "task": {
        "question": "Which Python versions do the latest releases of quillpy and nimbus-cache require?",
        "answer": "quillpy 3.2.1 needs Python >=3.10; nimbus-cache 0.9.4 needs Python >=3.9",
        "scenario": "parallel_multi_hop",
    },
    "subtasks": [
        {"id": "quill_version", "question": "What is the latest release of quillpy?", "answer": "3.2.1",
         "golden_call": {"tool": "latest_release", "arguments": {"package": "quillpy"}}},
        {"id": "quill_python", "question": "Which Python does quillpy 3.2.1 require?", "answer": "Python >=3.10",
         "depends_on": ["quill_version"],
         "golden_call": {"tool": "release_info", "arguments": {"package": "quillpy", "version": "3.2.1"}}},
        {"id": "nimbus_version", "question": "What is the latest release of nimbus-cache?", "answer": "0.9.4",
         "golden_call": {"tool": "latest_release", "arguments": {"package": "nimbus-cache"}}},
        {"id": "nimbus_python", "question": "Which Python does nimbus-cache 0.9.4 require?", "answer": "Python >=3.9",
         "depends_on": ["nimbus_version"],
         "golden_call": {"tool": "release_info", "arguments": {"package": "nimbus-cache", "version": "0.9.4"}}},
    ],
    "tools": [
        {"name": "latest_release", "description": "The newest release of a package on the package index, with its date.",
         "input_schema": {"type": "object", "properties": {"package": _PACKAGE}, "required": ["package"]}},
        {"name": "release_info", "description": "Metadata of one release: Python requirement, dependencies, licence.",
         "input_schema": {"type": "object",
                          "properties": {"package": _PACKAGE, "version": {"type": "string", "pattern": r"^\d+\.\d+\.\d+$"}},
                          "required": ["package", "version"]}},
    ],
}
