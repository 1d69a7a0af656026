/* PaperSearch progressive enhancement. Everything works without it: forms submit, filters are links.
   Adds: auto-submit of sort/size selects, Space on checkbox links, arrow keys in a chart, copy buttons, and
   search-box autocomplete (ARIA 1.2 combobox + listbox, keyboard: ↓/↑ move, Enter choose, Escape close). */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  ready(function () {
    // Sort and page size: apply as soon as they change (the Apply button is hidden with JS on).
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () {
        if (select.form.requestSubmit) select.form.requestSubmit();
        else select.form.submit();
      });
    });

    // Facet values are links with role=checkbox: make Space toggle them as it would a checkbox.
    document.querySelectorAll('a[role="checkbox"]').forEach(function (link) {
      link.addEventListener("keydown", function (event) {
        if (event.key === " ") { event.preventDefault(); link.click(); }
      });
    });

    // A chart's bars (templates/_chart.html) are one tab stop: the arrow keys, Home and End move between them.
    document.querySelectorAll("[data-chart]").forEach(function (list) {
      var bars = Array.prototype.slice.call(list.querySelectorAll("a"));
      var current = bars.filter(function (a) { return a.classList.contains("is-selected"); })[0] || bars[bars.length - 1];
      bars.forEach(function (a) { a.tabIndex = a === current ? 0 : -1; });
      list.addEventListener("keydown", function (event) {
        var i = bars.indexOf(document.activeElement);
        var next = {ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: bars.length - 1}[event.key];
        if (i < 0 || next === undefined || next < 0 || next >= bars.length) return;
        event.preventDefault();
        bars[i].tabIndex = -1;
        bars[next].tabIndex = 0;
        bars[next].focus();
      });
    });

    // Copy buttons (the citation on the paper page): copy the text of the element named by data-copy.
    document.querySelectorAll("button[data-copy]").forEach(function (button) {
      button.addEventListener("click", function () { copyText(button); });
    });

    var input = document.getElementById("q");
    if (input && input.dataset.suggestUrl && window.fetch) autocomplete(input);
  });

  function copyText(button) {
    var source = document.getElementById(button.dataset.copy);
    var status = document.getElementById("cite-status");
    function say(message) { if (status) status.textContent = message; }
    if (!source) return;
    if (!navigator.clipboard || !navigator.clipboard.writeText) {
      selectText(source);
      say(button.dataset.failed);
      return;
    }
    navigator.clipboard.writeText(source.textContent).then(
      function () { say(button.dataset.copied); },
      function () { selectText(source); say(button.dataset.failed); }
    );
  }

  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function autocomplete(input) {
    var list = document.createElement("ul");
    var listId = "q-suggestions";
    var items = [];
    var active = -1;
    var timer = null;
    var controller = null;
    var lastQuery = null;

    list.id = listId;
    list.className = "suggestions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", input.dataset.labelList || "Suggestions");
    list.hidden = true;
    input.parentNode.appendChild(list);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", listId);
    input.setAttribute("aria-expanded", "false");

    function close() {
      list.hidden = true;
      active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }

    function highlight(index) {
      active = index;
      Array.prototype.forEach.call(list.children, function (li, i) {
        li.setAttribute("aria-selected", i === index ? "true" : "false");
        if (i === index) {
          input.setAttribute("aria-activedescendant", li.id);
          li.scrollIntoView({ block: "nearest" });
        }
      });
      if (index < 0) input.removeAttribute("aria-activedescendant");
    }

    function choose(index) {
      var item = items[index];
      if (!item) return;
      close();
      if (item.url) window.location.assign(item.url);
    }

    function render(suggestions) {
      items = suggestions;
      list.textContent = "";
      suggestions.forEach(function (s, i) {
        var li = document.createElement("li");
        var kind = document.createElement("span");
        var text = document.createElement("span");
        li.id = listId + "-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        kind.className = "kind";
        kind.textContent = s.kind === "author" ? input.dataset.labelAuthor
          : s.kind === "concept" ? input.dataset.labelConcept : input.dataset.labelTitle;
        text.className = "text";
        text.textContent = s.text; // textContent: suggestions are never parsed as HTML
        li.appendChild(kind);
        li.appendChild(text);
        if (s.other) {
          var other = document.createElement("span");
          other.className = "other";
          other.textContent = s.other;
          li.appendChild(other);
        }
        li.addEventListener("mousedown", function (event) { event.preventDefault(); choose(i); });
        list.appendChild(li);
      });
      if (suggestions.length) {
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
        highlight(-1);
      } else {
        close();
      }
    }

    function fetchSuggestions() {
      var q = input.value.trim();
      if (q === lastQuery) return;
      lastQuery = q;
      if (q.length < 2) { render([]); return; }
      if (controller) controller.abort();
      controller = window.AbortController ? new AbortController() : null;
      fetch(input.dataset.suggestUrl + "?q=" + encodeURIComponent(q), {
        headers: { Accept: "application/json" },
        signal: controller ? controller.signal : undefined
      })
        .then(function (r) { return r.ok ? r.json() : { suggestions: [] }; })
        .then(function (data) { if (input.value.trim() === q) render(data.suggestions || []); })
        .catch(function () { /* aborted or offline: the plain search still works */ });
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(fetchSuggestions, 150);
    });
    input.addEventListener("keydown", function (event) {
      var open = !list.hidden && items.length > 0;
      if (event.key === "ArrowDown") {
        event.preventDefault();
        if (!open) { lastQuery = null; fetchSuggestions(); return; }
        highlight(active + 1 >= items.length ? 0 : active + 1);
      } else if (event.key === "ArrowUp" && open) {
        event.preventDefault();
        highlight(active <= 0 ? items.length - 1 : active - 1);
      } else if (event.key === "Enter" && open && active >= 0) {
        event.preventDefault();
        choose(active);
      } else if (event.key === "Escape" && open) {
        event.preventDefault();
        close();
      }
    });
    input.addEventListener("blur", function () { setTimeout(close, 100); });
  }
})();
