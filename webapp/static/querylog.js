/* Result clicks and retyped queries for the query log (docs/operations.md "Query log"), sent as JSON with a
   keepalive fetch (it outlives the page, like navigator.sendBeacon, which cannot send application/json, the
   only type /api/events takes) to this site's /api/events (allowed by the CSP's connect-src 'self'). Nothing
   identifying is sent: the query id belongs to one search. The previous search of this tab is kept in
   sessionStorage (never sent to the server except as its query id in a "retype" event). */
(function () {
  "use strict";
  var KEY = "papersearch.lastSearch";
  var RETYPE_WINDOW_MS = 60000; // a new query within a minute of the last one, without a click, is a retype

  var section = document.querySelector("[data-query-id]");
  if (!section || !window.fetch) return;
  var url = section.dataset.eventsUrl;
  var queryId = section.dataset.queryId;
  var input = document.getElementById("q");
  var query = input ? input.value.trim().toLowerCase().replace(/\s+/g, " ") : "";

  function send(event) {
    try {
      fetch(url, { method: "POST", body: JSON.stringify(event), keepalive: true, credentials: "same-origin",
                   headers: { "Content-Type": "application/json" } }).catch(function () { /* best effort */ });
    } catch (e) { /* best effort */ }
  }

  var store = null;
  try { store = window.sessionStorage; } catch (e) { /* storage disabled: clicks only */ }
  if (store) {
    var last = null;
    try { last = JSON.parse(store.getItem(KEY) || "null"); } catch (e) { last = null; }
    if (last && last.id !== queryId && last.q && last.q !== query && Date.now() - last.at < RETYPE_WINDOW_MS) {
      send({ type: "retype", query_id: queryId, previous_query_id: last.id });
    }
    if (query) store.setItem(KEY, JSON.stringify({ id: queryId, q: query, at: Date.now() }));
    else store.removeItem(KEY);
  }

  var list = section.querySelector("ol.hits");
  if (!list) return;
  var first = list.start || 1;
  Array.prototype.forEach.call(list.children, function (item, index) {
    var link = item.querySelector("a[data-paper-id]");
    if (!link) return;
    function followed() {
      send({ type: "click", query_id: queryId, position: first + index, paper_id: link.dataset.paperId });
      if (store) store.removeItem(KEY); // the next search after a click is a new one, not a retype
    }
    link.addEventListener("click", followed);
    link.addEventListener("auxclick", function (event) { if (event.button === 1) followed(); });
  });
})();
