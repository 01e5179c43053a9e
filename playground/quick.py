"""The quick start of the static site: the sketch (views.sketch) driven by a session, before Panel.

Importing Panel and Bokeh takes seconds in Pyodide; the engine and the model take a fraction of
that. So the page's worker starts here: it opens the shared link (or the default example), and
the sketch can Run, Backward and Zero grad at once. When Panel has loaded, ``handoff()`` gives
the app this very session and the state to reopen, so nothing the user did is lost.
"""
from playground.model import examples, links
from playground.model.session import InProcessSession
from playground.views import panels, sketch

_current = None


class QuickStart:
    def __init__(self, link_text="", session=None):
        self.session = session or InProcessSession()
        self.notice = None
        ex = examples.default_example()
        self.state = links.validate({"code": ex.code, "output": ex.output, "gradient": ex.gradient,
                                     "retain_graph": ex.retain_graph, "create_graph": ex.create_graph,
                                     "example": ex.key})
        text = (link_text or "").lstrip("#")
        if text:
            try:
                self.state = links.decode(text)
            except links.LinkError as exc:
                self.notice = f"{exc} The default example was loaded instead."
        self.snapshot = self.session.restore(self.state["code"], self.state["actions"]).to_dict()
        err = self.snapshot.get("error")
        if text and err and self.state["actions"] and self.notice is None:
            # (a link the app made replays; an edited one may not, and the app, taking over, shows
            # only what did: so the notice says what failed)
            first = (err.get("message") or "").splitlines()[0].split(". ")[0].rstrip(".")[:200]
            line = f"{err.get('type')}: {first}"
            self.notice = (f"这个链接记录的操作有一步失败了（{line}），页面显示的是失败之前的状态。"
                           if self.state["language"] == "zh" else
                           f"One of this link's actions failed ({line}); the page shows the state before it.")
        self._follow()

    def command(self, action, code=None):
        """``action``: "run", "backward" or "zero_grad"; ``code``: what the editor shows."""
        if code is not None and (action == "run" or code != self.snapshot.get("code")):
            self.snapshot = self.session.run(code).to_dict()
            self._follow()
        if action == "backward" and self.snapshot.get("ok", True) and not self.snapshot.get("stale"):
            s = self.state
            self.snapshot = self.session.backward(self.output(), s["gradient"], s["retain_graph"],
                                                  s["create_graph"]).to_dict()
        elif action == "zero_grad":
            self.snapshot = self.session.zero_grad().to_dict()
        self._follow()
        return self.view()

    def output(self):
        outputs = self.snapshot.get("outputs") or []
        want = self.state["output"]
        return want if want in outputs else self.snapshot.get("default_output")

    def view(self):
        """The sketch's regions, the link to show in the address bar, and any notice."""
        out = sketch.parts(self.snapshot, self.state["language"], self.output())
        if self.notice:
            out["output"] = panels.banner_html(self.notice) + out["output"]
        ex = next((e for e in examples.EXAMPLES if e.key == self.state["example"]), None)
        lang = self.state["language"]
        out["title"], out["explain"] = (ex.title(lang), ex.explain(lang)) if ex else ("", "")
        out["tagline"] = panels.TAGLINE[lang]
        out["link"] = self.link()
        out["wide"] = bool(self.state.get("wide"))  # the graph across the page, above the code, as the app shows it
        out["notice"] = self.notice or ""
        return out

    def link(self):
        try:
            return links.encode(self.state)
        except links.LinkError:
            return ""

    def finish(self, code):
        """The code the sketch's editor holds as the app takes over: run if it was not (so the
        app, the graph and the link all show it); the view if anything changed, else None."""
        if code is None or code == self.snapshot.get("code"):
            return None
        return self.command("run", code)

    def handoff(self):
        """What the app needs to carry on: this session, the state to show, and the link the
        address bar holds for it."""
        return {"session": self.session, "state": dict(self.state), "notice": self.notice, "link": self.link()}

    def _follow(self):
        """Keep the link state in step with the session, as the app does."""
        snap = self.snapshot
        if snap.get("code") is not None:
            self.state["code"] = snap["code"]
        replay = snap.get("replay") or {}
        self.state["actions"] = [] if snap.get("stale") else list(replay.get("actions") or [])
        self.state["output"] = self.output()  # as the app's output menu falls back to the default


def start(link_text=""):
    global _current
    _current = QuickStart(link_text)
    return _current


def current():
    """The quick start still in charge, or None once the app has taken over."""
    return _current


def handoff():
    """Keyword arguments for the app: empty unless a quick start ran in this interpreter."""
    global _current
    quick, _current = _current, None
    return quick.handoff() if quick else {}
