/* Service worker: after one visit the site works offline.
 *
 * build.py fills in VERSION (a hash of the build) and PRECACHE (every file a visit loads that
 * the build knows of). The page adds what it really loaded (editor modes, fonts) with a
 * "cache" message. Same-origin GETs are answered from the cache first; a new build gets a new
 * cache and the old one is dropped.
 */
"use strict";
const VERSION = /*@VERSION@*/ "";
const PRECACHE = /*@PRECACHE@*/ [];
const CACHE = "playground-" + VERSION;

self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith("playground-") && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })()
  );
});

function sameOrigin(url) {
  return new URL(url, self.location.href).origin === self.location.origin;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !sameOrigin(request.url)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      // The page's query string (share links, synced widgets) does not change any file.
      const hit = await cache.match(request, { ignoreSearch: true });
      if (hit) return hit;
      const response = await fetch(request);
      if (response.ok && response.type === "basic") await cache.put(request, response.clone());
      return response;
    })()
  );
});

self.addEventListener("message", (event) => {
  if (!event.data || event.data.type !== "cache") return;
  const reply = (msg) => event.ports[0] && event.ports[0].postMessage(msg);
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const urls = [...new Set(event.data.urls.filter(sameOrigin).map((u) => u.split("#")[0]))];
      for (const url of urls) {
        if (!(await cache.match(url, { ignoreSearch: true }))) await cache.add(url);
      }
      reply("cached");
    })().catch((err) => {
      console.warn("Offline cache incomplete: " + err);
      reply("failed");
    })
  );
});
