"""The playground's stylesheet (inlined, so the page needs no extra request)."""

CSS = """
:root { --ap-blue: #2563eb; --ap-border: #e2e8f0; --ap-muted: #64748b; }
body { background: #f8fafc; }
.ap-header { border-bottom: 1px solid var(--ap-border); background: #fff; }
.ap-title { font: 600 20px/1.2 system-ui, -apple-system, "Segoe UI", sans-serif; color: #0f172a; margin: 0; }
.ap-title-small { font-size: 15px; }
.ap-open { font: 13px system-ui, sans-serif; color: var(--ap-blue); text-decoration: none; white-space: nowrap; }
.ap-open:hover { text-decoration: underline; }
.ap-embed { padding: 0 10px; }
.ap-title small { font-weight: 400; color: var(--ap-muted); font-size: 13px; margin-left: 8px; }
.ap-card { background: #fff; border: 1px solid var(--ap-border); border-radius: 10px; }
.ap-section { font: 600 12px system-ui, sans-serif; color: var(--ap-muted); text-transform: uppercase;
              letter-spacing: .04em; margin: 2px 0 4px; }
.ap-out { background: #0f172a; color: #e2e8f0; padding: 8px 10px; border-radius: 6px; font-size: 12.5px;
          white-space: pre-wrap; margin: 0 0 6px; max-height: 260px; overflow: auto; }
.ap-result { background: #1e293b; }
.ap-error { background: #fef2f2; border: 1px solid #fecaca; color: #991b1b; padding: 8px 10px;
            border-radius: 6px; font-size: 13px; }
.ap-error pre { margin: 6px 0 0; white-space: pre-wrap; font-size: 12px; color: #7f1d1d; }
.ap-hint { margin-top: 6px; color: #92400e; background: #fffbeb; border-radius: 4px; padding: 4px 6px; }
.ap-note { color: var(--ap-muted); font-size: 12.5px; padding: 2px 0; }
.ap-banner { background: #fffbeb; border: 1px solid #fde68a; color: #92400e; padding: 6px 10px;
             border-radius: 6px; font-size: 13px; }
.ap-explain { font-size: 13.5px; line-height: 1.5; color: #1e293b; }
.ap-explain-title { font-weight: 600; font-size: 15px; margin-bottom: 2px; }
.ap-explain p { margin: 0; }
.ap-explain summary { cursor: pointer; color: var(--ap-muted); font-size: 12.5px; }
.ap-tag { font-weight: 500; font-size: 11.5px; color: #92400e; background: #fef3c7; border-radius: 4px;
          padding: 1px 6px; vertical-align: 2px; }
.ap-table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
.ap-table th { text-align: left; color: var(--ap-muted); font-weight: 600; border-bottom: 1px solid var(--ap-border);
               padding: 4px 6px; }
.ap-table td { border-bottom: 1px solid #f1f5f9; padding: 4px 6px; vertical-align: top; }
.ap-cellpre { margin: 0; font-size: 11.5px; white-space: pre; max-height: 120px; max-width: min(560px, 42vw); overflow: auto; }
.ap-scroll { overflow-x: auto; max-width: 100%; }
.ap-cellsub { font-size: 11px; color: var(--ap-muted); margin-top: 2px; }
.ap-cellnote { font-size: 11px; white-space: normal; min-width: 120px; max-width: 200px; line-height: 1.3; }
.ap-grad { color: #166534; }
.ap-muted { color: #94a3b8; }
.ap-badge { color: #fff; border-radius: 8px; padding: 0 6px; font-size: 10.5px; margin-left: 4px; white-space: nowrap; }
.ap-table td:first-child { white-space: nowrap; }
.ap-scroll .ap-table td:first-child, .ap-scroll .ap-table th:first-child { position: sticky; left: 0; z-index: 1;
                                                                         background: #fff; }
.ap-hist { margin-bottom: 8px; }
.ap-hist .ap-table { width: auto; min-width: 320px; }
.ap-hist .ap-table td:first-child { padding-right: 24px; }
.ap-check td { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; white-space: nowrap; }
.ap-check .ap-check-bad td { color: #991b1b; background: #fef2f2; }
.ap-legend { font-size: 11.5px; color: #475569; display: flex; flex-wrap: wrap; gap: 4px 12px; }
.ap-legend span.sw { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 4px;
                     vertical-align: -2px; border: 1px solid #94a3b8; }
.ap-status { font-size: 12.5px; color: var(--ap-muted); }
@media (min-width: 921px) { .ap-status { white-space: nowrap; } }  /* (a phone's page must not scroll sideways) */
.ap-step { font-size: 13px; color: #1e293b; }
.ap-step-title { font-weight: 600; margin-bottom: 2px; }
.ap-step-hint { font-weight: 400; font-size: 11.5px; }
.ap-step-rule { color: #92400e; background: #fffbeb; border-radius: 4px; padding: 3px 6px; margin: 2px 0 4px;
                font-size: 12.5px; }
.ap-step-grad { margin: 2px 0; }
.ap-step-grad span:first-child { font-size: 12px; color: #475569; }
.ap-exercise { background: #f0f9ff; border: 1px solid #bae6fd; border-radius: 8px; padding: 2px 4px; margin: 6px 0; }
.ap-try { font-size: 13.5px; color: #0c4a6e; }
.ap-try-title { font-weight: 600; margin-right: 4px; }
.ap-verdict { font-size: 13px; padding: 4px 8px; border-radius: 6px; }
.ap-right { background: #f0fdf4; color: #166534; }
.ap-wrong { background: #fef2f2; color: #991b1b; }
.ap-setup, .ap-invalid { background: #fffbeb; color: #92400e; }
.ap-step-saved td { padding: 0 8px 2px 0; vertical-align: top; font-size: 12px; }
"""


def player_css(tips):
    """Hover labels for the backward player's buttons ({button class: text}); Panel's Player gives
    its buttons none, and this stylesheet goes inside its shadow root."""
    rules = ["button { position: relative; }"]
    for name, text in tips.items():
        rules.append(f'button.{name}:hover::after {{ content: "{text}"; }}')
    rules.append("button:hover::after { position: absolute; bottom: 115%; left: 50%; transform: translateX(-50%); "
                 "white-space: nowrap; background: #1e293b; color: #fff; font: 12px system-ui, sans-serif; "
                 "padding: 2px 6px; border-radius: 4px; pointer-events: none; z-index: 10; }")
    return "\n".join(rules)
