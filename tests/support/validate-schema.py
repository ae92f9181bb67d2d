#!/usr/bin/env python3
"""Checks JSON documents against one of hugetune's JSON Schemas (draft 2020-12).

usage: validate-schema.py SCHEMA DOCUMENT...

Exit 0 when the schema is a valid draft 2020-12 schema and every document validates; 1 with one
line per problem on stderr otherwise; 2 when python3-jsonschema (a test dependency) is missing.
The unit tests and the binary tests (tests/cli/) both validate through this one program.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is a test dependency (make test-deps)", file=sys.stderr)
    sys.exit(2)


def main(schema_path, document_paths):
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    problems = 0
    for path in document_paths:
        with open(path) as f:
            document = json.load(f)
        for error in validator.iter_errors(document):
            where = "/".join(map(str, error.absolute_path)) or "(document)"
            print(f"{path}: {where}: {error.message}", file=sys.stderr)
            problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
