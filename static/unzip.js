/* Fetches the app's pure-Python wheels and unzips them, on a thread of its own.
 *
 * worker.js starts it (new Worker("unzip.js", {name: "unzip"})) the moment it starts itself,
 * so downloads and unzipping run alongside Pyodide's boot; the files come back transferred,
 * ready to be written into site-packages. Without nested workers, worker.js loads this file
 * with importScripts and calls unzipWheel itself. fflate.js (npm "fflate", MIT) inflates.
 */
"use strict";
importScripts("fflate.js");

function sriSha256(hex) {
  return "sha256-" + btoa(String.fromCharCode(...hex.match(/../g).map((h) => parseInt(h, 16))));
}

/* -> [[path inside the wheel, Uint8Array], ...]; the browser checks the sha256. */
async function unzipWheel(indexURL, wheel) {
  const url = indexURL + wheel.file_name;
  const response = await fetch(url, { integrity: sriSha256(wheel.sha256) });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const files = fflate.unzipSync(new Uint8Array(await response.arrayBuffer()), {
    filter: (f) => !f.name.endsWith("/"),
  });
  const out = Object.entries(files);
  for (const [name] of out) {
    if (name.startsWith("/") || name.split("/").includes("..")) throw new Error(`${url}: unsafe path ${name}`);
  }
  return out;
}

if (self.name === "unzip") {
  self.onmessage = (event) => {
    const { indexURL, wheels } = event.data;
    for (const wheel of wheels) {
      unzipWheel(indexURL, wheel).then(
        (files) => {
          const buffers = [...new Set(files.map(([, data]) => data.buffer))];
          self.postMessage({ type: "wheel", file_name: wheel.file_name, files }, buffers);
        },
        (err) => self.postMessage({ type: "error", file_name: wheel.file_name, msg: String(err.message || err) })
      );
    }
  };
}
