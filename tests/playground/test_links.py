import base64
import json
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.model import links
from playground.model.links import LinkError, decode, encode

STATE = {
    "code": "import torch\n# 中文注释\nx = torch.ones(2, 2, requires_grad=True)\nout = (x * 2).sum()\n",
    "output": "out",
    "gradient": None,
    "retain_graph": True,
    "create_graph": False,
    "example": "basics",
    "language": "zh",
    "actions": [
        {"op": "backward", "output": "out", "gradient": None, "retain_graph": True, "create_graph": False},
        {"op": "zero_grad"},
    ],
    "step": 2,
    "modules": ["m0", "m3"],
    "check": {"output": "out", "gradient": "torch.tensor([[1., 2.], [3., 4.]])"},
    "wide": True,
}


def pack(obj, version="v1"):
    raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return version + "." + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


def test_round_trip():
    text = encode(STATE)
    assert text.startswith("v1.")
    assert all(c.isalnum() or c in "-_." for c in text)
    assert decode(text) == STATE
    assert decode("#" + text) == STATE


@settings(max_examples=50, deadline=None)
@given(code=st.text(max_size=500), retain=st.booleans(), output=st.none() | st.text(max_size=20))
def test_round_trip_any_text(code, retain, output):
    state = {**links.DEFAULTS, "code": code, "retain_graph": retain, "output": output}
    assert decode(encode(state)) == state


def test_a_gradient_check_in_a_link_names_an_output():
    assert decode(encode({"code": "", "check": {"output": "y", "extra": 1}}))["check"] == {"output": "y", "gradient": None}
    for bad in ({"gradient": "g"}, {"output": 3}, {"output": "y", "gradient": 2}):
        with pytest.raises(LinkError, match="'check' should name an output"):
            decode(pack({"code": "", "check": bad}))
    with pytest.raises(LinkError, match="'check' should be an object or null"):
        decode(pack({"code": "", "check": "y"}))


def test_defaults_and_unknown_keys():
    state = decode(pack({"code": "x = 1", "future_feature": [1, 2], "language": "fr"}))
    assert state == {**links.DEFAULTS, "code": "x = 1", "language": "en"}


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "not a playground link"),
        ("hello", "not a playground link"),
        ("v1.", "damaged"),
        ("v1.!!!!", "bad characters"),
        ("v1.AAAA", "cannot be unpacked"),
        ("v9." + pack({"code": ""})[3:], "newer playground"),
        (pack(b"\xff\xfe not json"), "not readable"),
        (pack([1, 2, 3]), "does not hold playground state"),
        (pack({"code": 5}), "'code' should be text"),
        (pack({"retain_graph": "yes"}), "'retain_graph' should be true/false"),
        (pack({"wide": 1}), "'wide' should be true/false"),
        (pack({"actions": [{"op": "rm -rf"}]}), "not Backward or Zero grad"),
        (pack({"actions": [{"op": "backward"}]}), "names no output"),
        (pack({"actions": [{"op": "zero_grad"}] * 51}), "more than 50 actions"),
    ],
)
def test_malformed_links_raise_clear_errors(text, words):
    with pytest.raises(LinkError) as info:
        decode(text)
    assert words in str(info.value)


def test_truncated_link():
    text = encode({**STATE, "code": "x = torch.randn(3)\n" * 50})
    with pytest.raises(LinkError, match="damaged"):
        decode(text[: len(text) // 2])


def test_oversized_links():
    with pytest.raises(LinkError, match="too long"):
        encode({"code": "x" * (70 * 1024)})
    with pytest.raises(LinkError, match="too long"):
        decode("v1." + "A" * (40 * 1024))
    bomb = pack({"code": " " * (1024 * 1024)})  # 1 MB of JSON, a few KB in the link
    assert len(bomb) < links.MAX_ENCODED
    with pytest.raises(LinkError, match="more than 64 KB"):
        decode(bomb)


def test_incompressible_code_over_the_encoded_limit():
    import random

    rng = random.Random(0)
    code = "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(12_000))  # ~36 KB of UTF-8
    with pytest.raises(LinkError, match="too long"):
        encode({"code": code})


def test_embed_code_and_the_embedded_view():
    page = links.page_address("https:", "example.org", "", "/playground/")
    assert page == "https://example.org/playground/"
    assert links.page_address("http:", "127.0.0.1", "8000", "/") == "http://127.0.0.1:8000/"
    assert links.page_address("", "", "", "") is None  # the page has not said where it is yet
    text = encode(STATE)
    html = links.embed_html(page, text)
    assert html == (f'<iframe src="https://example.org/playground/?embed#{text}" title="Autograd Playground" '
                    'width="100%" height="780" style="border:1px solid #e2e8f0;border-radius:8px" '
                    'allow="clipboard-write" loading="lazy"></iframe>')
    assert decode(html.split("#", 1)[1].split('"', 1)[0]) == decode(text)  # the frame opens this very state
    assert links.embed_html('https://x.org/a"b', "v1.x").startswith('<iframe src="https://x.org/a&quot;b?embed#v1.x"')
    for search, embedded in [("?embed", True), ("?embed=1", True), ("?a=2&embed", True), ("", False),
                             (None, False), ("?embed=0", False), ("?embed=False", False), ("?embedded=1", False)]:
        assert links.is_embedded(search) is embedded, search
