#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""schema_check.py SCC SRCDIR SCHEMADIR [CORPUS]: the JSON Schemas of
`scc --print-schema` against what scc accepts and rejects, with a real
validator (python3-jsonschema, Draft 7).

1. SCHEMADIR (the build's installed copy) holds exactly what
   `scc --print-schema NAME` prints, for every NAME, and each is a valid
   Draft-7 schema.
2. Every file scc accepts -- the stdlib scenarios, every test fixture, every
   corpus file (CORPUS, when the folder exists) -- validates against the
   schema of the dialect scc read it as; so does the policy file a tui-use
   scenario names by path.  "Accepts" means `scc --check` exits 0 with no
   unknown-key warning: the schemas are closed (an editor flags a key scc
   would ignore), so a key scc warns about is a schema rejection.
3. Every file of tests/errors (and every other file above scc rejects, when
   all its errors are schema reasons) that scc rejects for a schema reason (an
   unknown key or event, a wrong type, a missing required field, a bad enum
   value) is rejected by the schema too, except the rules listed in
   CROSS_FIELD, which a schema cannot express.
4. No schema lists a mapping's keys and takes others too: every mapping
   scc checks the keys of -- each Scenario-Format event's fields, each
   section, block and step -- is closed, so an editor flags what scc warns
   about (a mapping without a key list is free-form: _meta, args).

YAML is read as scc reads it: the YAML 1.2 core schema (yaml_tree.c), not
PyYAML's YAML 1.1 (where `yes`, `on`, `0777`, `1_000` and dates are not
strings)."""
import json
import os
import re
import subprocess
import sys

import jsonschema
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import json_objects  # noqa: E402

DIALECTS = ["scenario", "tui-use", "eliza", "yao"]
SCHEMAS = DIALECTS[:2] + ["tui-use-policy"] + DIALECTS[2:]
EXTS = (".yaml", ".yml", ".json", ".jsonl")

# Messages of schema-reason errors: a file of tests/errors with one of
# these must fail its schema.
SCHEMA_REASON = re.compile(
    r"unknown (event|key|action type|evaluation type|assertion type)|"
    r"needs '|must be (a|an) (string|list|mapping|integer|boolean|object|number)|"
    r"must be a list|must be one of|not supported: ElizaOS's schema")

# Rejections a schema cannot express (file -> why), left out of check 3.
CROSS_FIELD = {
    "timeline_two_events.yaml": "exactly one event key per item: the schema lists the keys that may stand",
    "blank_name.yaml": "a name of blanks: the schema says string; 'not only blanks' is scc's",
}

# The same, for files outside tests/errors, by message: a rejection whose
# condition depends on another field's value.
CROSS_FIELD_MESSAGES = re.compile(r"a wait action needs 'condition'")   # only when type is wait

# Not done yet (issue 37 item 1): the fields INSIDE a Scenario-Format event
# (toolExecution, assert, agentEdits, setMode, userInputs entries, ...) are
# checked by code in lower_*.c, not from a table the generator can read, so
# the scenario schema describes events by name only.  Each file here must
# still pass the schema (so the list shrinks as event bodies get tables).
class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 core schema's implicit types,
    the ones compiler/yaml_tree.c gives plain scalars."""


CoreLoader.yaml_implicit_resolvers = {}
for tag, regexp, first in [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     list("-+.0123456789")),
]:
    CoreLoader.add_implicit_resolver(tag, re.compile(regexp), first)


def core_int(loader, node):
    v = node.value
    if v.startswith("0o"):
        return int(v[2:], 8)
    if v.startswith("0x"):
        return int(v[2:], 16)
    return int(v, 10)


CoreLoader.add_constructor("tag:yaml.org,2002:int", core_int)


def as_json(v):
    """Mapping keys as the strings scc reads them as."""
    if isinstance(v, dict):
        return {(k if isinstance(k, str) else json.dumps(k) if isinstance(k, bool) or k is None else str(k)): as_json(x)
                for k, x in v.items()}
    if isinstance(v, list):
        return [as_json(x) for x in v]
    return v


def documents(path, dialect):
    """The JSON values of path: one per line of a Yao .jsonl file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if dialect == "yao":      # JSON Lines; a case may span lines (scc warns), `//` lines are comments
        return json_objects(text)
    return [as_json(yaml.load(text, Loader=CoreLoader))]


def scc(exe, *args):
    r = subprocess.run([exe, "--check", "--diagnostics-format=json", *args], capture_output=True, text=True,
                       timeout=60)
    diags = [json.loads(l) for l in r.stdout.splitlines() + r.stderr.splitlines() if l.startswith("{")]
    return r.returncode, diags


def dialect_of(exe, path):
    for d in DIALECTS:
        if scc(exe, "--dialect", d, path)[0] == 0:
            return d
    return None


def open_mappings(node, where="#"):
    """The places in a schema where a mapping lists its keys but takes
    others too.  A mapping with no key list is free-form (_meta, args, a
    tool call): scc does not check its keys either."""
    out = []
    if isinstance(node, dict):
        if "properties" in node and node.get("additionalProperties") is not False \
                and not ("allOf" in node and all("then" in x for x in node["allOf"])):
            out.append(where)
        for k, v in node.items():
            if k in ("properties", "definitions"):
                for name, sub in v.items():
                    out += open_mappings(sub, f"{where}/{k}/{name}")
            elif k != "if" and isinstance(v, (dict, list)):     # a condition, not a mapping
                out += open_mappings(v, f"{where}/{k}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            out += open_mappings(sub, f"{where}/{i}")
    return out


def errors(validator, doc):
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(doc)]


def main():
    exe, src, schema_dir = sys.argv[1:4]
    corpus = sys.argv[4] if len(sys.argv) > 4 else None
    bad = []
    validators = {}
    for name in SCHEMAS:                                                    # 1
        out = subprocess.run([exe, "--print-schema", name], capture_output=True, text=True, check=True).stdout
        with open(os.path.join(schema_dir, name + ".schema.json"), encoding="utf-8") as f:
            if f.read() != out:
                bad.append(f"{schema_dir}/{name}.schema.json differs from scc --print-schema {name}")
        schema = json.loads(out)
        jsonschema.Draft7Validator.check_schema(schema)
        validators[name] = jsonschema.Draft7Validator(schema)
    r = subprocess.run([exe, "--print-schema", "nope"], capture_output=True, text=True)
    if r.returncode != 2 or "scenario, tui-use, tui-use-policy, eliza or yao" not in r.stderr:
        bad.append(f"--print-schema nope: status {r.returncode}, {r.stderr!r} (want 2 and the list)")

    if corpus and not os.path.isdir(corpus):
        print(f"schema_check: no corpus at {corpus}; its files are left out")
    files = []
    for top in [os.path.join(src, "stdlib-scenarios"), os.path.join(src, "tests")] + \
            ([corpus] if corpus and os.path.isdir(corpus) else []):
        for d, _, names in os.walk(top):
            files += [os.path.join(d, n) for n in sorted(names) if n.endswith(EXTS)]
    errs_dir = os.path.join(src, "tests", "errors")
    for name in SCHEMAS:                                                    # 4
        for where in open_mappings(json.loads(subprocess.run([exe, "--print-schema", name], capture_output=True,
                                                             text=True, check=True).stdout)):
            bad.append(f"{name} schema: the mapping at {where} is open (no additionalProperties: false), "
                       "so an editor would not flag a key scc warns about")
    accepted = rejected = 0
    refused_elsewhere = []
    for path in sorted(files):                                              # 2
        if os.path.dirname(path) == errs_dir:
            continue
        rc, diags = scc(exe, path)
        if rc != 0:
            refused_elsewhere.append(path)
            continue
        if any(d.get("flag") == "unknown-key" for d in diags):
            continue
        dialect = dialect_of(exe, path)
        if dialect is None:
            continue          # a file scc chose among data and skipped (a policy, a terminal config)
        try:
            docs = documents(path, dialect)
        except (ValueError, yaml.YAMLError) as e:
            bad.append(f"{path}: scc accepts it but the test cannot read it: {e}")
            continue
        accepted += 1
        for doc in docs:
            for e in errors(validators[dialect], doc):
                bad.append(f"{path} ({dialect}): scc accepts it, the schema does not: {e}")
            pol = (doc.get("run") or {}).get("policy") if dialect == "tui-use" and isinstance(doc, dict) else None
            pp = pol.get("path") if isinstance(pol, dict) else pol if isinstance(pol, str) else None
            if pp:
                full = os.path.join(os.path.dirname(path), pp)
                if os.path.isfile(full):
                    for e in errors(validators["tui-use-policy"], documents(full, "tui-use-policy")[0]):
                        bad.append(f"{full} (policy of {path}): the policy schema refuses it: {e}")

    for name in sorted(os.listdir(errs_dir)):                               # 3
        path = os.path.join(errs_dir, name)
        if not name.endswith(EXTS):
            continue
        rc, diags = scc(exe, path)
        reasons = [d["message"] for d in diags if d["severity"] in ("error", "warning") and
                   SCHEMA_REASON.search(d["message"])]
        if not reasons or name in CROSS_FIELD:
            continue
        others = [d["message"] for d in diags if d["severity"] == "error" and not SCHEMA_REASON.search(d["message"])]
        if others and rc != 0 and not any(d["severity"] == "error" and SCHEMA_REASON.search(d["message"])
                                          for d in diags):
            continue
        dialect = None
        for d in DIALECTS:                  # the dialect whose front end said it
            rcd, dd = scc(exe, "--dialect", d, path)
            if [x["message"] for x in dd] == [x["message"] for x in diags]:
                dialect = d
                break
        try:
            docs = documents(path, dialect or "scenario")
        except (ValueError, yaml.YAMLError):
            continue              # not readable as JSON values: a syntax error, not a schema one
        refused = any(errors(validators[dialect or "scenario"], doc) for doc in docs)
        rejected += 1
        if not refused:
            bad.append(f"{path}: scc rejects it ({reasons[0]}), the {dialect or 'scenario'} schema accepts it")

    for path in sorted(refused_elsewhere):                                  # 3, beyond tests/errors
        rc, diags = scc(exe, path)
        errs = [d["message"] for d in diags if d["severity"] == "error"]
        if not errs or not all(SCHEMA_REASON.search(m) for m in errs) or \
                any(CROSS_FIELD_MESSAGES.search(m) for m in errs):
            continue
        dialect = next((d for d in DIALECTS
                        if [x["message"] for x in scc(exe, "--dialect", d, path)[1]] == [x["message"] for x in diags]),
                       None)
        if dialect is None:
            continue
        try:
            docs = documents(path, dialect)
        except (ValueError, yaml.YAMLError):
            continue
        rejected += 1
        if not any(errors(validators[dialect], doc) for doc in docs):
            bad.append(f"{path}: scc rejects it ({errs[0]}), the {dialect} schema accepts it")

    for b in bad:
        print("FAIL", b)
    print(f"schema_check: {accepted} accepted files validated, {rejected} schema-reason rejections checked, "
          f"{len(CROSS_FIELD)} cross-field rules left to scc, "
          f"{len(bad)} failures")
    if accepted == 0 or rejected == 0:
        print("FAIL nothing checked")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
