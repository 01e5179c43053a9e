"""The playground's model layer: plain Python + NumPy, no Panel or Bokeh.

- ``runner``: run user code with ``torch`` bound to the engine, capture output and errors.
- ``graph``: trace the autograd graph reachable from the user's tensors.
- ``layout``: layered left-to-right positions for that graph.
- ``program``: edit the code so a ``requires_grad`` toggle survives re-runs.
- ``links``: share-link state to and from a URL hash.
- ``session``: the live session (in-process, or in a child process) behind the views.
- ``examples``: the examples menu.
"""
