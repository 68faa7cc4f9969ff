"""Verifies DKIM signatures with dkimpy (Debian's python3-dkim), a verifier independent of mailauth.

Reads JSON from stdin: {"record": "<TXT record>", "messages": ["<base64 message>", ...]}; every
selector's DNS lookup answers `record`. Writes JSON: one {"ok": bool, "error": str|None} per message.
"""
import base64
import json
import sys

import dkim

request = json.load(sys.stdin)
record = request["record"].encode()


def dnsfunc(name, timeout=5):
    return record


results = []
for encoded in request["messages"]:
    message = base64.b64decode(encoded)
    try:
        ok = dkim.verify(message, dnsfunc=dnsfunc)
        results.append({"ok": bool(ok), "error": None})
    except Exception as error:  # dkimpy raises on malformed signatures; report it as a failure
        results.append({"ok": False, "error": f"{type(error).__name__}: {error}"})
json.dump(results, sys.stdout)
