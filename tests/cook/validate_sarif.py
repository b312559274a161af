#!/usr/bin/env python3
"""`animpack check --format sarif` against the SARIF 2.1.0 JSON Schema.

Runs the command on failing scenes of tests/data/cook (glTF errors at JSON pointers with a
note at the scene key, an error with a note at the [[mesh]], several errors, a warning) and
on the clean one, from that folder so the paths are relative, and validates each log with
Debian's python3-jsonschema (the schema is draft-04: tests/data/corpus/schemas/, OASIS
licence in tests/data/corpus/LICENSES/). Then checks what the schema cannot: the exit
status, artifact URIs relative, notes as relatedLocations, glTF pointers as logical
locations.

usage: validate_sarif.py ANIMPACK SOURCE_DIR
"""
import json
import pathlib
import subprocess
import sys

import jsonschema

# scene: (exit status, codes of the results, whether a result has relatedLocations, whether
# one has a JSON pointer)
SCENES = {
    "invalid_gltf.toml": (1, {"E0201"}, True, True),
    "root_motion_without_rig.toml": (1, {"E0213", "W0301"}, True, True),
    "several.toml": (1, {"E0201", "E0202", "E0203", "E0206", "W0301"}, False, True),
    "event_past_end.toml": (0, {"W0204", "W0301"}, False, True),
    "good.toml": (0, {"W0301"}, False, True),
}


def fail(message):
    print("validate_sarif: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 3:
        fail("usage: validate_sarif.py ANIMPACK SOURCE_DIR")
    animpack = str(pathlib.Path(sys.argv[1]).resolve())
    source = pathlib.Path(sys.argv[2]).resolve()
    schema_path = source / "tests/data/corpus/schemas/sarif-schema-2.1.0.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema)
    for scene, (status, codes, related, pointer) in SCENES.items():
        run = subprocess.run([animpack, "check", "--format", "sarif", scene],
                             cwd=source / "tests/data/cook", capture_output=True, timeout=120)
        if run.returncode != status:
            fail(f"{scene}: exit status {run.returncode}, expected {status}\n"
                 + run.stderr.decode(errors="replace"))
        try:
            log = json.loads(run.stdout.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            fail(f"{scene}: not JSON ({e})")
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
        for e in errors:
            print(f"{scene}: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
        if errors:
            fail(f"{scene}: {len(errors)} schema errors")
        (only_run,) = log["runs"]
        results = only_run["results"]
        got = {r["ruleId"] for r in results}
        if got != codes:
            fail(f"{scene}: result codes {sorted(got)}, expected {sorted(codes)}")
        rules = only_run["tool"]["driver"]["rules"]
        for r in results:
            if rules[r["ruleIndex"]]["id"] != r["ruleId"]:
                fail(f"{scene}: ruleIndex of {r['ruleId']} names {rules[r['ruleIndex']]['id']}")
        for a in only_run["artifacts"]:
            if a["location"]["uri"].startswith("/"):
                fail(f"{scene}: artifact {a['location']['uri']} is not relative")
        if related != any("relatedLocations" in r for r in results):
            fail(f"{scene}: relatedLocations {'missing' if related else 'unexpected'}")
        has_pointer = any(loc.get("logicalLocations") for r in results for loc in r["locations"])
        if pointer != has_pointer:
            fail(f"{scene}: JSON pointer logicalLocations {'missing' if pointer else 'unexpected'}")
        print(f"{scene}: valid SARIF 2.1.0, {len(results)} results")


if __name__ == "__main__":
    main()
