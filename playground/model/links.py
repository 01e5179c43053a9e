"""Share links: the playground state in the URL hash, as ``v1.`` + base64url(zlib(JSON)).

Toggles live in the code itself (program.set_requires_grad), so the code carries them.
``actions`` replays what the sender pressed after Run (Backward, Zero grad), so the receiver
sees the same accumulated grads.
"""
import base64
import binascii
import json
import re
import zlib
from html import escape
from urllib.parse import parse_qs

VERSION = "v1"
MAX_ENCODED = 32 * 1024  # characters in the hash
MAX_DECODED = 64 * 1024  # bytes of JSON after inflating
MAX_ACTIONS = 50
LANGUAGES = ("en", "zh")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")

DEFAULTS = {
    "code": "",
    "output": None,
    "gradient": None,
    "retain_graph": False,
    "create_graph": False,
    "example": None,
    "language": "en",
    "actions": [],
    "step": None,  # the backward step in view (the last one when None)
    # modules drawn as boxes: the ids of the open ones; False: every node drawn, as the user chose;
    # None: not chosen (a big graph of modules starts with boxes)
    "modules": None,
    # the gradient check on screen: {"output", "gradient"} it was made for, or None
    "check": None,
    "wide": False,  # the graph across the page, above the code
}
_TYPES = {
    "code": (str,),
    "output": (str, type(None)),
    "gradient": (str, type(None)),
    "retain_graph": (bool,),
    "create_graph": (bool,),
    "example": (str, type(None)),
    "language": (str,),
    "actions": (list,),
    "step": (int, type(None)),
    "modules": (list, bool, type(None)),
    "check": (dict, type(None)),
    "wide": (bool,),
}
_GROUP_ID = re.compile(r"m[0-9]{1,6}")


class LinkError(ValueError):
    """The link cannot be opened; the message says why, for the user."""


def _check_action(action):
    """An action is {"op": "backward", "output", "gradient", "retain_graph", "create_graph"}
    or {"op": "zero_grad"}."""
    if not isinstance(action, dict) or action.get("op") not in ("backward", "zero_grad"):
        raise LinkError("This link is damaged: an action in it is not Backward or Zero grad.")
    if action["op"] == "zero_grad":
        return {"op": "zero_grad"}
    clean = {"op": "backward"}
    for key in ("output", "gradient", "retain_graph", "create_graph"):
        value = action.get(key, DEFAULTS[key])
        if not isinstance(value, _TYPES[key]):
            raise LinkError(f"This link is damaged: a Backward action has a bad '{key}'.")
        clean[key] = value
    if clean["output"] is None:
        raise LinkError("This link is damaged: a Backward action names no output.")
    return clean


def validate(state):
    """Return a clean state dict (defaults filled, unknown keys dropped) or raise LinkError."""
    if not isinstance(state, dict):
        raise LinkError("This link is damaged: it does not hold playground state.")
    clean = {}
    for key, default in DEFAULTS.items():
        value = state.get(key, default)
        if not isinstance(value, _TYPES[key]):
            expected = " or ".join("null" if t is type(None) else {"str": "text", "bool": "true/false", "list": "a list",
                                                                   "int": "a number", "dict": "an object"}[t.__name__]
                                for t in _TYPES[key])
            raise LinkError(f"This link is damaged: '{key}' should be {expected}.")
        clean[key] = value
    if type(clean["step"]) is bool or (clean["step"] is not None and clean["step"] < 0):
        raise LinkError("This link is damaged: 'step' should be a step number.")
    if clean["modules"] is True or isinstance(clean["modules"], list) and not all(
            isinstance(g, str) and _GROUP_ID.fullmatch(g) for g in clean["modules"]):
        raise LinkError("This link is damaged: 'modules' should list module calls.")
    if clean["check"] is not None:
        check = {"output": clean["check"].get("output"), "gradient": clean["check"].get("gradient")}
        if not isinstance(check["output"], str) or not isinstance(check["gradient"], (str, type(None))):
            raise LinkError("This link is damaged: 'check' should name an output.")
        clean["check"] = check
    if clean["language"] not in LANGUAGES:
        clean["language"] = "en"
    if len(clean["actions"]) > MAX_ACTIONS:
        raise LinkError(f"This link replays more than {MAX_ACTIONS} actions.")
    clean["actions"] = [_check_action(a) for a in clean["actions"]]
    return clean


def encode(state):
    """State dict -> URL hash string (without '#')."""
    clean = validate(state)
    raw = json.dumps(clean, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(raw) > MAX_DECODED:
        raise LinkError(f"The code is too long to share in a link ({len(raw) // 1024} KB; the limit is {MAX_DECODED // 1024} KB).")
    packed = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")
    text = f"{VERSION}.{packed}"
    if len(text) > MAX_ENCODED:
        raise LinkError(f"The code is too long to share in a link (the limit is {MAX_ENCODED // 1024} KB compressed).")
    return text


def decode(text):
    """URL hash string (with or without '#') -> clean state dict, or raise LinkError."""
    if not isinstance(text, str):
        raise LinkError("This link is damaged: it is not text.")
    text = text.strip().lstrip("#")
    if len(text) > MAX_ENCODED:
        raise LinkError(f"This link is too long ({len(text) // 1024} KB; the limit is {MAX_ENCODED // 1024} KB).")
    version, dot, payload = text.partition(".")
    if not dot or not version.startswith("v"):
        raise LinkError("This is not a playground link.")
    if version != VERSION:
        raise LinkError(f"This link was made by a newer playground ({version}); this one reads {VERSION}.")
    if not _BASE64URL.fullmatch(payload):
        raise LinkError("This link is damaged: it was cut or changed (bad characters).")
    try:
        packed = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    except (binascii.Error, ValueError):
        raise LinkError("This link is damaged: it was cut or changed (bad characters).") from None
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(packed, MAX_DECODED + 1)
    except zlib.error:
        raise LinkError("This link is damaged: it was cut or changed (cannot be unpacked).") from None
    if len(raw) > MAX_DECODED or inflater.unconsumed_tail:
        raise LinkError(f"This link holds more than {MAX_DECODED // 1024} KB; it was not opened.")
    if not inflater.eof:
        raise LinkError("This link is damaged: it was cut short.")
    try:
        state = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise LinkError("This link is damaged: its content is not readable.") from None
    return validate(state)


EMBED_HEIGHT = 780  # px: the editor, the graph and the Backward controls of a stacked layout


def page_address(protocol, hostname, port, pathname):
    """The playground's address without query or hash (from the parts of the page's location),
    or None while the page has not said where it is."""
    if not protocol or not hostname:
        return None
    return f"{protocol}//{hostname}{':' + str(port) if port else ''}{pathname or '/'}"


def embed_html(page, text):
    """The HTML a course page pastes to show the playground at ``page`` in the state of the link
    ``text``: an iframe of the compact view (``?embed``)."""
    return (f'<iframe src="{escape(page)}?embed#{escape(text)}" title="Autograd Playground" width="100%" '
            f'height="{EMBED_HEIGHT}" style="border:1px solid #e2e8f0;border-radius:8px" '
            'allow="clipboard-write" loading="lazy"></iframe>')


def is_embedded(search):
    """Whether the page's query string (``?embed``, ``?embed=1``) asks for the compact view."""
    value = parse_qs((search or "").lstrip("?"), keep_blank_values=True).get("embed")
    return value is not None and value[-1].lower() not in ("0", "false", "no")
