// The history page: the user's runs (staff: everyone's) with search, filters and pages, kept in
// the URL so a filtered view can be bookmarked and the back button works. The runs of a page that
// belong to one conversation are grouped under its header, in the order they were asked.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var root = document.getElementById("history");
  if (!root) return;
  var staff = root.dataset.staff === "1";
  var form = document.getElementById("history-filters");
  var rows = document.getElementById("run-rows");
  var prev = document.getElementById("page-prev");
  var next = document.getElementById("page-next");
  var FIELDS = ["q", "status", "provider", "since", "until", "feedback"];
  var columns = staff ? 7 : 6;

  function params() {
    var search = new URL(window.location.href).searchParams;
    var values = {};
    FIELDS.concat(["page"]).forEach(function (name) { values[name] = search.get(name) || ""; });
    return values;
  }

  function fillForm(values) {
    FIELDS.forEach(function (name) {
      var field = form.elements[name];
      if (!field) return;
      if (field.tagName === "SELECT" && values[name] && !field.querySelector('option[value="' + CSS.escape(values[name]) + '"]')) {
        field.appendChild(el("option", { value: values[name], text: values[name] }));
      }
      field.value = values[name];
    });
  }

  function nextDay(date) {
    var day = new Date(date + "T00:00:00Z");
    if (isNaN(day)) return date;
    day.setUTCDate(day.getUTCDate() + 1);
    return day.toISOString().slice(0, 10);
  }

  function load() {
    var values = params();
    fillForm(values);
    var query = new URLSearchParams();
    if (values.q) query.set("q", values.q);
    if (values.status) query.set("status", values.status);
    if (values.provider) query.set("provider", values.provider);
    if (values.feedback) query.set("feedback", values.feedback);
    if (values.since) query.set("since", values.since);
    // "Until" a day includes that day.
    if (values.until) query.set("until", nextDay(values.until));
    if (values.page) query.set("page", values.page);
    A.clear(rows);
    A.append(rows, el("tr", null, el("td", { colspan: columns, className: "muted", text: "Loading…" })));
    A.api("/api/runs?" + query.toString()).then(function (body) {
      render(body, parseInt(values.page, 10) || 1);
    }).catch(function (err) {
      A.clear(rows);
      A.append(rows, el("tr", null, el("td", { colspan: columns, className: "error", text: "Could not load runs: " + err.message })));
      document.getElementById("run-count").textContent = "";
    });
  }

  // A re-run's mark and the run's ratings, beside its question.
  function reviewMarks(run) {
    var ratings = run.ratings || {};
    var marks = [];
    if (run.rerun_of) marks.push(el("span", { className: "chip", text: "re-run" }));
    if (ratings.up) marks.push(el("span", { className: "chip ok", title: "Rated good", text: "✓ " + ratings.up }));
    if (ratings.down) marks.push(el("span", { className: "chip err", title: "Rated bad", text: "✗ " + ratings.down }));
    return marks.length ? el("div", { className: "history-rating" }, marks) : null;
  }

  function render(body, page) {
    var results = body.results || [];
    A.clear(rows);
    document.getElementById("run-count").textContent = body.count + (body.count === 1 ? " run" : " runs");
    if (!results.length) {
      A.append(rows, el("tr", null, el("td", { colspan: columns, className: "muted" }, [
        "No runs match. ", el("a", { href: "/", text: "Ask a question" }), " to start one."
      ])));
    }
    groupByConversation(results).forEach(function (group) {
      if (group.length < 2) { A.append(rows, runRow(group[0], 0)); return; }
      A.append(rows, conversationRow(group));
      group.forEach(function (run, i) { A.append(rows, runRow(run, i + 1)); });
    });
    prev.disabled = !body.previous;
    next.disabled = !body.next;
    document.getElementById("page-label").textContent = body.count ? "Page " + page : "";
    prev.onclick = function () { go({ page: page - 1 > 1 ? String(page - 1) : "" }); };
    next.onclick = function () { go({ page: String(page + 1) }); };
  }

  // Runs in groups, newest group first: a conversation's runs (oldest first) where the page holds
  // more than one of them, else one run alone.
  function groupByConversation(results) {
    var groups = [];
    var byConversation = {};
    results.forEach(function (run) {
      var key = run.conversation;
      if (key && byConversation[key]) { byConversation[key].unshift(run); return; }
      var group = [run];
      if (key) byConversation[key] = group;
      groups.push(group);
    });
    return groups;
  }

  function conversationRow(group) {
    var id = group[0].conversation;
    return el("tr", { className: "conv-row", dataset: { conversationId: id } }, el("td", { colspan: columns }, [
      el("span", { className: "conv-label", text: "Conversation" }),
      el("strong", { text: String(group[0].query) }),
      el("span", { className: "muted", text: " · " + A.plural(group.length, "run") }),
      el("a", { className: "conv-open", href: "/?conversation=" + encodeURIComponent(id), text: "Open in chat" })
    ]));
  }

  // `turn` is the run's place in its conversation's group (0: not in a group).
  function runRow(run, turn) {
    var provider = String(run.provider) + (run.model ? " · " + run.model : "");
    var rewritten = run.standalone_query && run.standalone_query !== run.query;
    return el("tr", { className: turn ? "in-conv" : null, dataset: { runId: run.id, status: run.status } }, [
      el("td", { className: "when" }, el("time", { datetime: run.created_at, text: A.formatTime(run.created_at) })),
      el("td", { className: "query-cell" }, [
        turn ? el("span", { className: "turn-no", text: turn + "." }) : null,
        el("a", { href: "/history/" + encodeURIComponent(run.id) + "/", text: String(run.query) }),
        rewritten ? el("div", { className: "muted small", text: "Searched as: " + run.standalone_query }) : null,
        run.error_code ? el("div", { className: "doc-error", text: run.error_code }) : null,
        reviewMarks(run)
      ]),
      staff ? el("td", { text: String(run.user) }) : null,
      el("td", null, el("span", { className: "badge " + run.status, text: run.status })),
      el("td", { className: "num", text: A.formatDuration(run.duration_ms) }),
      el("td", { text: provider }),
      el("td", { className: "num", text: A.formatNumber(run.total_tokens) })
    ]);
  }

  function go(changes) {
    var url = new URL(window.location.href);
    Object.keys(changes).forEach(function (name) {
      if (changes[name]) url.searchParams.set(name, changes[name]); else url.searchParams.delete(name);
    });
    window.history.pushState(null, "", url.toString());
    load();
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var changes = { page: "" };
    FIELDS.forEach(function (name) { changes[name] = (form.elements[name].value || "").trim(); });
    go(changes);
  });
  window.addEventListener("popstate", load);

  A.api("/api/providers").then(function (body) {
    var select = form.elements.provider;
    Object.keys(body.providers || {}).forEach(function (name) {
      if (!select.querySelector('option[value="' + CSS.escape(name) + '"]')) {
        select.appendChild(el("option", { value: name, text: String(body.providers[name].label || name) }));
      }
    });
    select.value = params().provider;
  }).catch(function () { /* the filter still works by typing the URL */ });
  load();
})();
