// Keyboard review and the remembered reviewer name. Plain JavaScript, no build step.
(function () {
  "use strict";
  var NAME_KEY = "knowledge-review.reviewer";

  function reviewerInputs() { return document.querySelectorAll("input[name=reviewer]"); }

  function rememberName() {
    var stored = window.localStorage.getItem(NAME_KEY) || "";
    reviewerInputs().forEach(function (input) {
      if (!input.value && stored) { input.value = stored; }
      input.addEventListener("input", function () {
        window.localStorage.setItem(NAME_KEY, input.value.trim());
        reviewerInputs().forEach(function (other) { if (other !== input) { other.value = input.value; } });
      });
    });
    if (!stored) {
      var first = reviewerInputs()[0];
      if (first && first.value) { window.localStorage.setItem(NAME_KEY, first.value.trim()); }
    }
  }

  function toggleHelp(show) {
    var help = document.getElementById("help");
    if (help) { help.hidden = show === undefined ? !help.hidden : !show; }
  }

  function submit(form) {
    var reviewer = form.querySelector("input[name=reviewer]");
    if (reviewer && !reviewer.value.trim()) {
      reviewer.focus();
      reviewer.setAttribute("placeholder", "type your name first");
      return;
    }
    if (form.reportValidity && !form.reportValidity()) { return; }
    form.submit();
  }

  // Queue and documents pages: j/k move a selection over the rows, Enter opens it.
  var selected = -1;
  function rows() { return document.querySelectorAll("tr[data-href]"); }
  function select(delta) {
    var all = rows();
    if (!all.length) { return; }
    if (selected >= 0 && all[selected]) { all[selected].classList.remove("selected"); }
    selected = Math.max(0, Math.min(all.length - 1, selected + delta));
    all[selected].classList.add("selected");
    all[selected].scrollIntoView({ block: "nearest" });
  }

  function follow(id) {
    var link = document.getElementById(id);
    if (link) { window.location.href = link.href; }
  }

  function onEntryKey(key) {
    if (key === "j") { follow("next-entry"); return true; }
    if (key === "k") { follow("prev-entry"); return true; }
    if (key === "a") { submit(document.getElementById("approve-form")); return true; }
    if (key === "r") {
      var note = document.querySelector("#reject-form input[name=note]");
      note.focus();
      return true;
    }
    if (key === "e") {
      var panel = document.getElementById("edit-panel");
      panel.open = true;
      var field = panel.querySelector("input:not([type=hidden]), textarea, select");
      if (field) { field.focus(); }
      return true;
    }
    return false;
  }

  function onListKey(key) {
    if (key === "j") { select(1); return true; }
    if (key === "k") { select(-1); return true; }
    if (key === "Enter" && selected >= 0) { window.location.href = rows()[selected].dataset.href; return true; }
    return false;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var target = event.target;
    var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT");
    if (event.key === "Escape") {
      toggleHelp(false);
      var panel = document.getElementById("edit-panel");
      if (panel) { panel.open = false; }
      if (typing) { target.blur(); }
      return;
    }
    if (typing) { return; }
    if (event.key === "?") { toggleHelp(); event.preventDefault(); return; }
    var page = document.body.dataset.page;
    var handled = page === "entry" ? onEntryKey(event.key) : onListKey(event.key);
    if (handled) { event.preventDefault(); }
  });

  document.addEventListener("DOMContentLoaded", function () {
    rememberName();
    document.querySelectorAll("[data-help-toggle]").forEach(function (button) {
      button.addEventListener("click", function () { toggleHelp(); });
    });
    document.querySelectorAll("tr[data-href]").forEach(function (row) {
      row.addEventListener("dblclick", function () { window.location.href = row.dataset.href; });
    });
    document.querySelectorAll("form.decision").forEach(function (form) {
      form.addEventListener("submit", function () {
        var reviewer = form.querySelector("input[name=reviewer]");
        if (reviewer && reviewer.value.trim()) { window.localStorage.setItem(NAME_KEY, reviewer.value.trim()); }
      });
    });
    bulkSelection();
    var image = document.getElementById("page-image");
    var box = document.querySelector(".span-box");
    if (image && box) {
      if (image.complete) { showInSource(box); } else { image.addEventListener("load", function () { showInSource(box); }); }
    } else {
      var mark = document.getElementById("span-mark");
      if (mark) { showInSource(mark); }
    }
  });

  // Scroll the source column (beside the fields; under them, a box of its own, in a narrow window)
  // so the marked span sits in its upper third; the page itself is left where the fields are.
  function showInSource(marked) {
    var column = marked.closest("section.source");
    if (column && column.scrollHeight > column.clientHeight) {
      var at = marked.getBoundingClientRect(), frame = column.getBoundingClientRect();
      column.scrollTop += at.top - frame.top - frame.height / 3;
    }
  }

  // A page shown again from the browser's history (Back after a decision), or a tab left open
  // while decisions were taken elsewhere, would show the tallies and states it was rendered with:
  // they are read again from the server and updated in place.
  function refreshProgress() {
    var list = document.getElementById("progress");
    if (!list || !window.fetch) { return; }
    window.fetch("/documents/" + encodeURIComponent(list.dataset.docId) + "/progress",
                 { credentials: "same-origin", cache: "no-store" })
      .then(function (answer) { return answer.ok ? answer.json() : null; })
      .then(function (now) {
        if (!now) { return; }
        now.progress.forEach(function (p) {
          var item = list.querySelector("li[data-kind='" + p.kind + "']");
          if (!item) { return; }
          item.dataset.decided = String(p.decided);
          item.dataset.total = String(p.total);
          item.querySelector(".decided").textContent = String(p.decided);
        });
        document.querySelectorAll("tr[data-ref]").forEach(function (row) {
          var state = now.states[row.dataset.ref];
          var badge = row.querySelector(".badge");
          if (!state || !badge) { return; }
          row.className = row.className.replace(/\bstate-\S+/, "state-" + state);
          badge.className = "badge state-" + state;
          badge.textContent = state;
        });
      })
      .catch(function () { /* the page keeps what it was rendered with */ });
  }

  window.addEventListener("pageshow", function (event) {
    var entries = window.performance && performance.getEntriesByType ? performance.getEntriesByType("navigation") : [];
    if (event.persisted || (entries[0] && entries[0].type === "back_forward")) { refreshProgress(); }
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { refreshProgress(); }
  });

  // Queue page: "select all shown" ticks every row the filters show; the count follows the ticks.
  function bulkSelection() {
    var counter = document.getElementById("selected-count");
    if (!counter) { return; }
    var boxes = document.querySelectorAll("input[type=checkbox][form=bulk-form]");
    var recount = function () {
      var n = 0;
      boxes.forEach(function (box) { if (box.checked) { n += 1; } });
      counter.textContent = String(n);
    };
    boxes.forEach(function (box) {
      box.addEventListener("change", recount);
      box.addEventListener("click", function (event) { event.stopPropagation(); });
    });
    var all = document.querySelector("[data-select-all]");
    all.addEventListener("click", function () {
      var every = Array.prototype.every.call(boxes, function (box) { return box.checked; });
      boxes.forEach(function (box) { box.checked = !every; });
      all.textContent = every ? "Select all shown" : "Clear the selection";
      recount();
    });
    recount();
  }
})();
