// The run page's actions: rate the answer (feedback), re-run the question with changed
// settings and compare, and the run's lineage (its original, its re-runs). Built from the run
// record replay.js loads (the "adrag:run-loaded" event). Server text goes in as text only.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var feedbackCard = document.getElementById("feedback");
  var rerunCard = document.getElementById("rerun");
  if (!feedbackCard || !rerunCard) return;
  var runId = feedbackCard.dataset.runId;
  var runPath = "/api/runs/" + encodeURIComponent(runId);

  function shortId(id) { return String(id).slice(0, 8); }
  function compareHref(a, b) { return "/history/compare/?a=" + encodeURIComponent(a) + "&b=" + encodeURIComponent(b); }

  function describeOverrides(overrides) {
    return Object.keys(overrides || {}).map(function (key) {
      var value = overrides[key];
      if (key === "reranker") return value ? "reranker on" : "reranker off";
      if (value && typeof value === "object" && !Array.isArray(value)) {
        return Object.keys(value).map(function (k) { return key.replace(/_weights$/, "") + " " + k + " " + value[k]; }).join(", ");
      }
      return key + " " + (Array.isArray(value) ? "[" + value.join(", ") + "]" : String(value));
    }).join(", ");
  }

  // ---- lineage ----

  function renderLineage(run) {
    var box = document.getElementById("run-lineage");
    if (!box) return;
    A.clear(box);
    var parts = [];
    if (run.rerun_of) {
      parts.push(el("span", null, [
        el("strong", { text: "Re-run of " }),
        el("a", { href: "/history/" + encodeURIComponent(run.rerun_of) + "/", text: "run " + shortId(run.rerun_of) }),
        Object.keys(run.overrides || {}).length ? el("span", { className: "muted", text: " with " + describeOverrides(run.overrides) }) : null
      ]));
      parts.push(el("a", { className: "button-link small", id: "compare-original", href: compareHref(run.rerun_of, run.id), text: "Compare with the original" }));
    }
    (run.reruns || []).forEach(function (rerun) {
      parts.push(el("span", { className: "chip" }, [
        el("a", { href: "/history/" + encodeURIComponent(rerun.id) + "/", text: "re-run " + shortId(rerun.id) }),
        Object.keys(rerun.overrides || {}).length ? el("span", { className: "muted", text: describeOverrides(rerun.overrides) }) : null,
        el("a", { href: compareHref(run.id, rerun.id), text: "compare", className: "compare-rerun" })
      ]));
    });
    if (run.rerun_of || (run.reruns || []).length) {
      parts.push(el("a", { href: "/history/compare/?a=" + encodeURIComponent(run.id), text: "Compare with…" }));
    }
    A.append(box, parts);
    box.hidden = !parts.length;
  }

  // ---- feedback ----

  var rateButtons = Array.prototype.slice.call(feedbackCard.querySelectorAll("[data-rating]"));
  var comment = document.getElementById("feedback-comment");
  var saveButton = document.getElementById("feedback-save");
  var removeButton = document.getElementById("feedback-remove");
  var feedbackStatus = document.getElementById("feedback-status");
  var counts = document.getElementById("feedback-counts");
  var rating = "";

  function showRating(value) {
    rating = value || "";
    rateButtons.forEach(function (button) { button.setAttribute("aria-pressed", button.dataset.rating === rating ? "true" : "false"); });
    saveButton.disabled = !rating;
  }

  function renderFeedback(summary) {
    var mine = summary && summary.mine;
    showRating(mine ? mine.rating : "");
    comment.value = mine ? mine.comment : "";
    removeButton.hidden = !mine;
    feedbackCard.dataset.rating = mine ? mine.rating : "";
    counts.textContent = summary ? (summary.up + " good · " + summary.down + " bad") : "";
    feedbackStatus.textContent = mine ? "You rated this answer " + (mine.rating === "up" ? "good" : "bad") + " (" + A.formatTime(mine.updated_at) + ")." : "";
  }

  function saveFeedback() {
    if (!rating) return;
    saveButton.disabled = true;
    feedbackStatus.textContent = "Saving…";
    A.api(runPath + "/feedback", { method: "POST", body: { rating: rating, comment: comment.value } }).then(function (summary) {
      renderFeedback(summary);
      feedbackStatus.textContent = "Saved. " + feedbackStatus.textContent;
    }).catch(function (err) {
      saveButton.disabled = false;
      feedbackStatus.textContent = "Not saved: " + err.message;
    });
  }

  rateButtons.forEach(function (button) {
    button.addEventListener("click", function () {
      showRating(button.dataset.rating);
      saveFeedback();
    });
  });
  saveButton.addEventListener("click", saveFeedback);
  removeButton.addEventListener("click", function () {
    A.api(runPath + "/feedback", { method: "DELETE" }).then(function () {
      return A.api(runPath + "/feedback");
    }).then(function (summary) {
      renderFeedback(summary);
      feedbackStatus.textContent = "Your rating was removed.";
    }).catch(function (err) { feedbackStatus.textContent = "Not removed: " + err.message; });
  });

  // ---- re-run ----

  var form = document.getElementById("rerun-form");
  var providerSelect = document.getElementById("rr-provider");
  var modelInput = document.getElementById("rr-model");
  var kbBox = document.getElementById("rr-kbs");
  var rerankerBox = document.getElementById("rr-reranker");
  var submit = document.getElementById("rr-submit");
  var rrStatus = document.getElementById("rr-status");
  var result = document.getElementById("rr-result");
  var NUMBERS = ["retrieval_top_k", "rerank_top_k", "max_context_chars"];
  var WEIGHTS = A.stores().map(function (store) { return store.name; });
  var initial = null;

  function weightInput(name) { return document.getElementById("rr-w-" + name); }

  function currentValues() {
    var values = {
      provider: providerSelect.value,
      model: modelInput.value.trim(),
      reranker: rerankerBox.checked,
      knowledge_bases: Array.prototype.map.call(kbBox.querySelectorAll("input[name=rr-kb]:checked"), function (input) { return parseInt(input.value, 10); }).sort(function (x, y) { return x - y; }),
      weights: {}
    };
    NUMBERS.forEach(function (name) { values[name] = document.getElementById("rr-" + name).value; });
    WEIGHTS.forEach(function (name) { values.weights[name] = weightInput(name).value; });
    return values;
  }

  // Only what the user changed is sent: the rest stays as the run had it.
  function overrides() {
    var now = currentValues();
    var changed = {};
    if (now.provider && now.provider !== initial.provider) changed.provider = now.provider;
    if (now.model !== initial.model) changed.model = now.model || null;
    if (now.reranker !== initial.reranker) changed.reranker = now.reranker;
    if (kbBox.dataset.loaded === "1" && now.knowledge_bases.join(",") !== initial.knowledge_bases.join(",")) changed.knowledge_bases = now.knowledge_bases;
    NUMBERS.forEach(function (name) {
      if (now[name] !== "" && now[name] !== initial[name]) changed[name] = Number(now[name]);
    });
    WEIGHTS.forEach(function (name) {
      if (now.weights[name] !== "" && now.weights[name] !== initial.weights[name]) {
        changed.fusion_weights = changed.fusion_weights || {};
        changed.fusion_weights[name] = Number(now.weights[name]);
      }
    });
    return changed;
  }

  function fillForm(run) {
    var config = run.config || {};
    var weights = (config.fusion && config.fusion.weights) || {};
    NUMBERS.forEach(function (name) {
      var input = document.getElementById("rr-" + name);
      input.value = config[name] !== undefined && config[name] !== null ? String(config[name]) : "";
    });
    WEIGHTS.forEach(function (name) { weightInput(name).value = weights[name] !== undefined ? String(weights[name]) : ""; });
    rerankerBox.checked = !(config.reranker && config.reranker.kind === "fused-rank");
    modelInput.value = run.model || "";
    providerSelect.appendChild(el("option", { value: run.provider, text: run.provider }));
    providerSelect.value = run.provider;
    initial = currentValues();
    initial.knowledge_bases = (run.kb_ids || []).slice().sort(function (x, y) { return x - y; });
    A.api("/api/providers").then(function (body) {
      Object.keys(body.providers || {}).forEach(function (name) {
        if (providerSelect.querySelector('option[value="' + CSS.escape(name) + '"]')) return;
        var info = body.providers[name] || {};
        providerSelect.appendChild(el("option", { value: name, text: String(info.label || name) + (info.available === false ? " (unavailable)" : "") }));
      });
      providerSelect.value = run.provider;
    }).catch(function () { /* the run's own provider stays selectable */ });
    A.api("/api/knowledge-bases").then(function (body) {
      A.clear(kbBox);
      var kbs = body.knowledge_bases || [];
      if (!kbs.length) A.append(kbBox, el("span", { className: "muted small", text: "No knowledge bases." }));
      kbs.forEach(function (kb) {
        var id = "rr-kb-" + kb.id;
        A.append(kbBox, el("label", { className: "kb-option", for: id }, [
          el("input", { type: "checkbox", name: "rr-kb", id: id, value: kb.id, checked: initial.knowledge_bases.indexOf(kb.id) !== -1 }),
          String(kb.name)
        ]));
      });
      kbBox.dataset.loaded = "1";
    }).catch(function (err) {
      A.clear(kbBox);
      A.append(kbBox, el("span", { className: "error small", text: "Knowledge bases could not be loaded (" + err.message + "); the run's own are searched." }));
    });
  }

  function showResult(newId, ended) {
    A.clear(result);
    A.append(result, [
      el("strong", { text: ended ? "Re-run " + ended + "." : "Re-run started." }),
      el("a", { className: "button-link", id: "rr-compare", href: compareHref(runId, newId), text: "Compare the two runs →" }),
      el("a", { href: "/history/" + encodeURIComponent(newId) + "/", text: "Open run " + shortId(newId) })
    ]);
    result.hidden = false;
  }

  // Read the POST's stream (the same frames as POST /api/query) to follow the new run.
  function follow(response, newId) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    var ended = "";
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) return ended;
        buffer += decoder.decode(chunk.value, { stream: true });
        var lines = buffer.split("\n");
        buffer = lines.pop();
        lines.forEach(function (line) {
          if (line.slice(0, 6) !== "data: ") return;
          var frame;
          try { frame = JSON.parse(line.slice(6)); } catch (e) { return; }
          if (frame.type === "stage_start" && frame.data) rrStatus.textContent = "Re-running: " + frame.data.stage + "…";
          if (frame.type === "done") ended = "finished";
          if (frame.type === "error") ended = "ended with an error" + (frame.data && frame.data.message ? " (" + frame.data.message + ")" : "");
        });
        return pump();
      });
    }
    return pump();
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!initial) return;
    var body = overrides();
    submit.disabled = true;
    result.hidden = true;
    rrStatus.textContent = "Starting the re-run…";
    fetch(runPath + "/rerun", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream", "X-CSRFToken": A.csrfToken() },
      body: JSON.stringify(body)
    }).then(function (response) {
      if (!response.ok) {
        return response.text().then(function (text) {
          var data = {};
          try { data = JSON.parse(text); } catch (e) { data = { error: "The server answered " + response.status + "." }; }
          throw new A.ApiError(response.status, data);
        });
      }
      var newId = response.headers.get("X-Run-Id");
      rerunCard.dataset.rerunId = newId;
      showResult(newId, "");
      return follow(response, newId).then(function (ended) {
        showResult(newId, ended || "left running");
        rrStatus.textContent = Object.keys(body).length ? "Changed: " + describeOverrides(body) + "." : "Same settings as this run.";
        rerunCard.dataset.state = "done";
      });
    }).catch(function (err) {
      rrStatus.textContent = "";
      A.clear(result);
      A.append(result, el("span", { className: "error", text: "The re-run was refused: " + err.message + (err.code ? " (" + err.code + ")" : "") }));
      result.hidden = false;
    }).then(function () { submit.disabled = false; });
  });

  providerSelect.addEventListener("change", function () {
    // Another provider answers with its own default model unless one is named.
    if (initial && providerSelect.value !== initial.provider && modelInput.value === initial.model) modelInput.value = "";
  });

  document.addEventListener("adrag:run-loaded", function (event) {
    var run = event.detail || {};
    renderLineage(run);
    renderFeedback(run.feedback || null);
    if (!initial) fillForm(run);
  });
})();
