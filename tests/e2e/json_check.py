#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""json_check.py SCHEMA DEF [--ndjson]: checks the JSON on stdin against $defs/DEF of SCHEMA.

The standard library only: the subset of JSON Schema 2020-12 that docs/json-schema.json uses
(type, enum, const, properties, required, additionalProperties, unevaluatedProperties over
properties and a $ref beside them, items, anyOf, oneOf, minimum, maximum, minLength, pattern).
With --ndjson, stdin is one document a line, and each is checked. Prints what is wrong and
exits 1; exits 0, silent, when every document conforms. When the jsonschema module happens to
be installed, it checks too, so that the subset cannot drift from the standard unnoticed.
"""
import json
import re
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def resolve(root, ref):
    assert ref.startswith("#/"), ref
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def declared(root, schema):
    """The properties a schema evaluates: its own and those of its $ref."""
    names = set(schema.get("properties", {}))
    if "$ref" in schema:
        names |= declared(root, resolve(root, schema["$ref"]))
    return names


def check(root, schema, v, path, errs):
    if "$ref" in schema:
        check(root, resolve(root, schema["$ref"]), v, path, errs)
    t = schema.get("type")
    if t == "integer":
        if not isinstance(v, int) or isinstance(v, bool):
            return errs.append(f"{path}: {v!r} is not an integer")
    elif t == "number":
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            return errs.append(f"{path}: {v!r} is not a number")
    elif t and not isinstance(v, TYPES[t]):
        return errs.append(f"{path}: {v!r} is not of type {t}")
    if "enum" in schema and v not in schema["enum"]:
        errs.append(f"{path}: {v!r} is not one of {schema['enum']}")
    if "const" in schema and v != schema["const"]:
        errs.append(f"{path}: {v!r} is not {schema['const']!r}")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in schema and v < schema["minimum"]:
            errs.append(f"{path}: {v} is under {schema['minimum']}")
        if "maximum" in schema and v > schema["maximum"]:
            errs.append(f"{path}: {v} is over {schema['maximum']}")
    if isinstance(v, str):
        if len(v) < schema.get("minLength", 0):
            errs.append(f"{path}: {v!r} is too short")
        if "pattern" in schema and not re.search(schema["pattern"], v):
            errs.append(f"{path}: {v!r} does not match {schema['pattern']}")
    for key in ("anyOf", "oneOf"):
        if key in schema:
            ok = sum(1 for s in schema[key] if not check(root, s, v, path, []))
            if ok == 0 or (key == "oneOf" and ok > 1):
                errs.append(f"{path}: matches {ok} of the {key} choices")
    if isinstance(v, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in v:
                errs.append(f"{path}: '{name}' is missing")
        for name, val in v.items():
            if name in props:
                check(root, props[name], val, f"{path}.{name}", errs)
            elif isinstance(schema.get("additionalProperties"), dict):
                check(root, schema["additionalProperties"], val, f"{path}.{name}", errs)
            elif schema.get("additionalProperties") is False:
                errs.append(f"{path}: '{name}' is not in the schema")
            elif schema.get("unevaluatedProperties") is False and name not in declared(root, schema):
                errs.append(f"{path}: '{name}' is not in the schema")
    if isinstance(v, list) and "items" in schema:
        for i, item in enumerate(v):
            check(root, schema["items"], item, f"{path}[{i}]", errs)
    return errs


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        root = json.load(f)
    schema = root["$defs"][sys.argv[2]]
    text = sys.stdin.read()
    if "--ndjson" in sys.argv[3:]:
        lines = text.splitlines()
        if not lines or any(not line.strip() for line in lines):
            sys.exit("NDJSON: no documents, or an empty line")
        docs = [json.loads(line) for line in lines]
    else:
        docs = [json.loads(text)]
    errs = []
    for i, doc in enumerate(docs):
        check(root, schema, doc, f"[{i}]" if len(docs) > 1 else "$", errs)
        try:
            import jsonschema
        except ImportError:
            continue
        sub = dict(root, **{"$ref": f"#/$defs/{sys.argv[2]}"})
        sub.pop("oneOf", None)
        for e in jsonschema.Draft202012Validator(sub).iter_errors(doc):
            errs.append(f"jsonschema: {e.json_path}: {e.message}")
    if errs:
        print("\n".join(errs))
        sys.exit(1)


main()
