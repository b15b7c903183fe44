#!/usr/bin/python3
# kcidb-validate.py SCHEMA FILE...: validates each KCIDB I/O JSON file (or
# '-', stdin) against the kcidb-io schema the way kcidb-io does
# (Draft 7 with the format checker).  Prints one line per error, exits 1
# if any file is invalid.
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft7Validator(schema,
                               format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(sys.stdin if path == '-' else open(path))
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errs[:20]:
        print('%s: %s: %s' % (path, '/'.join(map(str, e.path)), e.message[:300]))
    if errs:
        bad = 1
sys.exit(bad)
