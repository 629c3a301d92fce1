# Verify a CampusBridge webhook in Python 3, standard library only.
# verify():          the X-Service-Signature header.
# verify_standard(): the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature).
# `headers` is any mapping of header name -> value (any case: a dict, Flask's or Django's request.headers);
# `raw_body` is the request body exactly as received (bytes), before any JSON parsing.
import base64
import hashlib
import hmac
import json
import re
import sys
import time

TOLERANCE_SECONDS = 5 * 60


def _header(headers, name):
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def _fresh(timestamp, now):
    # Rejects timestamps more than 5 minutes away from now (replays of old deliveries).
    return re.fullmatch(r"[0-9]+", timestamp) is not None and abs(now - int(timestamp)) <= TOLERANCE_SECONDS


def _same_text(expected, candidate):
    return hmac.compare_digest(expected.encode("utf-8"), candidate.encode("utf-8"))


def verify(secret, headers, raw_body, now=None):
    now = int(time.time()) if now is None else now
    value = _header(headers, "x-service-signature")
    if not isinstance(value, str):
        return False
    timestamp, candidates = None, []
    for part in value.split(","):
        key, sep, item = part.partition("=")
        if sep and key.strip() == "t":
            timestamp = item.strip()
        elif sep and key.strip() == "v1":
            candidates.append(item.strip())
    if timestamp is None or not _fresh(timestamp, now):
        return False
    # The key is the whole secret, whsec_ included, as UTF-8 text.
    signed = timestamp.encode("utf-8") + b"." + raw_body
    expected = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
    # During a secret rotation there are two v1 entries: accept when any one matches.
    return any(_same_text(expected, candidate) for candidate in candidates)


def verify_standard(secret, headers, raw_body, now=None):
    now = int(time.time()) if now is None else now
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not all(isinstance(v, str) for v in (msg_id, timestamp, signatures)):
        return False
    if not _fresh(timestamp, now):
        return False
    # The key is the base64-decoded part after whsec_.
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    signed = msg_id.encode("utf-8") + b"." + timestamp.encode("utf-8") + b"." + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode("ascii")
    for entry in signatures.split(" "):
        version, sep, candidate = entry.partition(",")
        if sep and version == "v1" and _same_text(expected, candidate):
            return True
    return False


# Test vector from stdin: {"secret", "headers", "body", "now"} -> {"service": bool, "standard": bool}
if __name__ == "__main__":
    vector = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    raw = vector["body"].encode("utf-8")
    args = (vector["secret"], vector["headers"], raw, vector.get("now"))
    print(json.dumps({"service": verify(*args), "standard": verify_standard(*args)}))
