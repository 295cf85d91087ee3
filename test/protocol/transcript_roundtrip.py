"""Decodes a recorded transcript of real child frames with quicktype-generated Python types and
round-trips each frame (decode -> encode -> equal JSON). Run by test/protocol/codegen.test.ts:

    python3 transcript_roundtrip.py <generated module dir> <schema.json> <transcript.jsonl>

Every frame is decoded with its own generated class, found by name as docs/codegen.md says:
`<Method>Request`, `<Method>Response`, `ErrorResponse`, `<Method>Notification` (as the schema's
`methods` and `notifications` index name them). quicktype folds a
union of objects into one class of all their fields (its IR has no tagged unions), so, as an
author would, each member whose schema is a discriminated union (`discriminator` in the schema:
the turn event, the turn result) is decoded again with the variant class its tag names. A
client frame the child rejected as invalid must fail to decode. Every frame is also validated
against the schema itself (its root `anyOf` of frame types) with the `jsonschema` package, and a
rejected frame must fail that too. Prints one JSON report line.
"""
import json
import re
import sys

sys.path.insert(0, sys.argv[1])
import protocol  # noqa: E402  (the generated module)
try:  # python3 without the package still decodes; the report then says validation did not run
    from jsonschema import Draft202012Validator  # noqa: E402
except ImportError:
    Draft202012Validator = None

schema = json.load(open(sys.argv[2]))
validator = Draft202012Validator(schema) if Draft202012Validator else None
defs = schema["$defs"]
REJECTED = {"invalid_params", "method_not_found", "invalid_request"}


def pascal(name):
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", name) if w)


def ref_name(node):
    ref = node.get("$ref", "")
    return ref.rsplit("/", 1)[1] if ref.startswith("#/$defs/") else None


def is_class(name):
    return "properties" in defs[name] or "discriminator" in defs[name]


def roundtrip(name, value, seen):
    """Decodes `value` as the generated class `name` and encodes it back."""
    d = defs[name]
    if "discriminator" in d:
        tag = d["discriminator"]["propertyName"]
        variant = ref_name({"$ref": d["discriminator"]["mapping"][value[tag]]})
        seen.add(f"{name}:{variant}")
        return roundtrip(variant, value, seen)
    encoded = getattr(protocol, name).from_dict(value).to_dict()
    for prop, sub in d.get("properties", {}).items():
        if prop in value and value[prop] is None and prop not in encoded:
            # quicktype's Python writes no None of an optional member: an optional and nullable
            # member's explicit null comes back absent (docs/codegen.md says so).
            encoded[prop] = None
        elif prop in value:
            encoded[prop] = patch(sub, value[prop], encoded[prop], seen)
    return encoded


def patch(node, value, encoded, seen):
    """The encoding of a member, with every nested union decoded by its variant class."""
    if value is None:
        return encoded
    options = node.get("anyOf") or node.get("oneOf")
    if options and not ref_name(node):
        refs = [o for o in options if o.get("type") != "null"]
        if len(refs) == 1:
            node = refs[0]
    name = ref_name(node)
    if name and is_class(name):
        return roundtrip(name, value, seen)
    if node.get("type") == "array" and isinstance(value, list):
        return [patch(node["items"], v, e, seen) for v, e in zip(value, encoded)]
    return encoded


def named(table, method, key, suffix):
    """The class the schema's method index names (a few bases are not pascal(method), e.g. the
    MCP ones, schema-names.ts); a method the schema does not have (a rejected frame) by rule."""
    entry = schema[table].get(method) if isinstance(method, str) else None
    return ref_name(entry[key]) if entry else f"{pascal(str(method))}{suffix}"


def frame_type(line, answers):
    frame = line["frame"]
    if line["from"] == "client":
        return named("methods", frame.get("method"), "request", "Request")
    if "method" in frame:
        return named("notifications", frame["method"], "notification", "Notification")
    if "error" in frame:
        return "ErrorResponse"
    return named("methods", line["method"], "response", "Response")


def main():
    lines = [json.loads(text) for text in open(sys.argv[3]) if text.strip()]
    answers = {
        line["frame"]["id"]: line["frame"]
        for line in lines
        if line["from"] == "child" and "id" in line["frame"]
    }
    seen, decoded, rejected, validated = set(), {}, 0, 0
    for index, line in enumerate(lines):
        frame = line["frame"]
        name = frame_type(line, answers)
        answer = answers.get(frame.get("id")) if line["from"] == "client" else None
        refused = answer is not None and answer.get("error", {}).get("code") in REJECTED
        if validator:
            valid = validator.is_valid(frame)
            if valid == refused:
                verdict = "accepts a frame the child rejected" if valid else "rejects a real frame"
                raise AssertionError(f"line {index + 1}: the schema {verdict}: {json.dumps(frame)}")
            validated += 1
        if refused and not hasattr(protocol, name):
            rejected += 1
            continue
        try:
            again = roundtrip(name, frame, seen) if hasattr(protocol, name) else None
        except Exception as error:  # a decode failure: the generated checks refused it
            if refused:
                rejected += 1
                continue
            raise AssertionError(f"line {index + 1}: {name} failed to decode: {error!r}")
        if refused:
            raise AssertionError(f"line {index + 1}: {name} decoded a frame the child rejected")
        if again is None:
            raise AssertionError(f"line {index + 1}: no generated class {name}")
        if again != frame:
            raise AssertionError(
                f"line {index + 1}: {name} did not round-trip:\n{json.dumps(frame)}\n"
                f"{json.dumps(again)}"
            )
        decoded[name] = decoded.get(name, 0) + 1
    report = {
        "frames": len(lines),
        "validated": validated if validator else None,
        "decoded": decoded,
        "variants": sorted(seen),
        "rejected": rejected,
    }
    print(json.dumps(report))


main()
