// The live tracker and the answer of one run, driven by the run's SSE frames ({type, data}).
// Used by the chat (live and resumed runs) and by the replay page (stored events).
// Everything from the server is untrusted: it is written with textContent, never innerHTML.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  // Shared with the per-stage details (run-stages.js, loaded first).
  var yesNo = A.runFormat.yesNo;
  var num = A.runFormat.num;
  var stageDetails = A.stageDetails;

  // The eight emitted stage ids: the wire contract, from the page (queries/pipeline/stages.py).
  var STAGES = A.pipeline().stages;
  // A retry replays the pipeline from retrieval; the planner does not run again, so its row keeps its result.
  var RETRY_RESET = STAGES.slice(1);
  // Every event type, from the page: answer_delta (the answer as it is written) and waiting (a
  // queued run that no live worker will take yet; never logged) included.
  var EVENT_TYPES = A.pipeline().event_types;
  var STATUS_LABELS = {
    idle: "idle", starting: "starting", running: "running", succeeded: "answered", failed: "failed",
    cancelled: "cancelled", interrupted: "interrupted", empty: "no answer"
  };

  // The reflection's outcome (the finalize frame's and the metadata's `verdict`, additive): what
  // the tracker's last row and the answer card say. "notfound" is a tone of its own: an honest
  // "the documents do not say" is neither a pass nor a fault of the answer.
  var VERDICTS = {
    verified: { finalized: "verified & finalized", tone: "ok" },
    unverified: { finalized: "finalized unverified", badge: "unverified", tone: "warn" },
    not_found: { finalized: "not found in the documents", badge: "not found in the documents", tone: "notfound" }
  };
  // Runs stored before the verdict existed carry only `grounded`.
  function verdictOf(data) {
    if (Object.prototype.hasOwnProperty.call(VERDICTS, data.verdict)) return data.verdict;
    return data.grounded === false ? "unverified" : "verified";
  }
  // A section path as one line: "Leave › Annual leave".
  var SECTION_SEPARATOR = " › ";


  function RunView(root, options) {
    options = options || {};
    this.root = root;
    this.idPrefix = options.idPrefix || "run";
    this.clock = Date.now;
    this.timer = null;
    this.rows = {};
    var self = this;
    // Rows missing from the page are left out rather than breaking the view.
    this.stages = STAGES.filter(function (stage) { return root.querySelector('[data-stage="' + stage + '"]'); });
    this.stages.forEach(function (stage) {
      var node = root.querySelector('[data-stage="' + stage + '"]');
      self.rows[stage] = {
        node: node,
        badge: node.querySelector("[data-role=stage-status]"),
        time: node.querySelector("[data-role=stage-time]"),
        details: node.querySelector("[data-role=stage-details]"),
        hint: node.querySelector("[data-role=stage-details]").textContent
      };
    });
    function part(role) { return root.querySelector("[data-role=" + role + "]"); }
    this.parts = {
      status: part("run-status"), attempt: part("attempt"), error: part("error"), notice: part("notice"),
      answer: part("answer"), meta: part("meta"), sources: part("sources"), sourcesBlock: part("sources-block"),
      runId: part("run-id")
    };
    var placeholder = part("placeholder");
    this.placeholderText = placeholder ? placeholder.textContent : "";
    this.reset();
  }

  RunView.STAGES = STAGES;
  RunView.EVENT_TYPES = EVENT_TYPES;

  RunView.prototype.setClock = function (clock) { this.clock = clock || Date.now; };

  RunView.prototype.reset = function (placeholder) {
    var self = this;
    this.stages.forEach(function (stage) { self.resetRow(stage); });
    this.outcome = null;
    this.ended = false;
    this.result = null;
    this.retryReason = "";
    this.draft = null;
    A.clear(this.parts.attempt);
    this.hideError();
    this.setNotice("");
    A.clear(this.parts.answer);
    A.append(this.parts.answer, el("p", { className: "muted placeholder", text: placeholder || this.placeholderText }));
    A.clear(this.parts.meta);
    A.clear(this.parts.sources);
    this.parts.sourcesBlock.hidden = true;
    this.setStatus("idle");
    this.stopTimer();
  };

  RunView.prototype.setRunId = function (runId) {
    var target = this.parts.runId;
    if (!target) return;
    A.clear(target);
    if (runId) A.append(target, el("a", { href: "/history/" + encodeURIComponent(runId) + "/", text: "run " + String(runId).slice(0, 8), title: "Open this run in History" }));
  };

  RunView.prototype.setStatus = function (status, label) {
    var badge = this.parts.status;
    badge.dataset.status = status;
    badge.className = "badge run-badge " + status;
    badge.textContent = label || STATUS_LABELS[status] || status;
  };

  RunView.prototype.setNotice = function (text) {
    var notice = this.parts.notice;
    notice.textContent = text || "";
    notice.hidden = !text;
  };

  RunView.prototype.showError = function (message, code, title) {
    var box = this.parts.error;
    A.clear(box);
    A.append(box, [el("strong", { text: title || "Error" }), message]);
    if (code) A.append(box, el("span", { className: "muted", text: " (" + code + ")" }));
    box.dataset.code = code || "";
    box.hidden = false;
  };

  RunView.prototype.hideError = function () {
    A.clear(this.parts.error);
    this.parts.error.hidden = true;
  };

  // ---- rows ----

  RunView.prototype.resetRow = function (stage) {
    var row = this.rows[stage];
    row.status = "idle";
    row.startedAt = null;
    row.endedAt = null;
    row.node.dataset.status = "idle";
    row.badge.textContent = "idle";
    row.badge.className = "badge stage-status idle";
    row.time.textContent = "";
    A.clear(row.details);
    row.details.textContent = row.hint;
  };

  RunView.prototype.setRow = function (stage, status, at) {
    var row = this.rows[stage];
    if (status === "running") {
      row.startedAt = at;
      row.endedAt = null;
    } else if (status !== "idle") {
      row.endedAt = at;
    }
    row.status = status;
    row.node.dataset.status = status;
    row.badge.textContent = status;
    row.badge.className = "badge stage-status " + status;
    this.renderTime(stage);
    if (status === "running") this.startTimer();
  };

  RunView.prototype.setDetails = function (stage, nodes) {
    var details = this.rows[stage].details;
    A.clear(details);
    A.append(details, nodes);
  };

  RunView.prototype.addDetails = function (stage, nodes) {
    A.append(this.rows[stage].details, nodes);
  };

  RunView.prototype.renderTime = function (stage) {
    var row = this.rows[stage];
    if (row.status === "skipped" && row.startedAt === null) { row.time.textContent = "—"; return; }
    if (row.startedAt === null) { row.time.textContent = ""; return; }
    var end = row.status === "running" ? this.clock() : row.endedAt;
    row.time.textContent = A.formatDuration(end - row.startedAt);
  };

  RunView.prototype.startTimer = function () {
    if (this.timer) return;
    var self = this;
    this.timer = setInterval(function () {
      var running = false;
      self.stages.forEach(function (stage) {
        if (self.rows[stage].status === "running") { running = true; self.renderTime(stage); }
      });
      if (!running) self.stopTimer();
    }, 200);
  };

  RunView.prototype.stopTimer = function () {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  };

  RunView.prototype.setAttempt = function (attempt, max, reason) {
    var target = this.parts.attempt;
    A.clear(target);
    if (!attempt) return;
    A.append(target, el("strong", { text: "Attempt " + attempt + " of " + (max || "?") }));
    if (reason) A.append(target, " · " + reason);
  };

  // ---- events ----

  // Apply one SSE frame; `at` is when it happened (ms since the epoch), for elapsed times.
  RunView.prototype.apply = function (frame, at) {
    if (!frame || typeof frame.type !== "string") return;
    at = typeof at === "number" && !isNaN(at) ? at : this.clock();
    var data = frame.data && typeof frame.data === "object" ? frame.data : {};
    // Run-level events first: `retry` carries no stage key, so it must never reach the stage guard.
    switch (frame.type) {
      case "retry": return this.onRetry(data);
      case "done": return this.onDone(data);
      case "error": return this.onError(data, at);
      case "stream_end": return this.onStreamEnd();
      case "answer_delta": return this.onAnswerDelta(data);
      case "waiting": return this.onWaiting(data);
    }
    var stage = data.stage;
    if (!stage || !this.rows[stage]) return;
    if (!this.outcome) this.setStatus("running");
    var row = this.rows[stage];
    switch (frame.type) {
      case "stage_start":
        this.setRow(stage, "running", at);
        this.setDetails(stage, data.message ? String(data.message) : "running…");
        if (stage === "reflection" && data.attempt) this.setAttempt(data.attempt, data.max_attempts, this.retryReason);
        break;
      case "stage_complete":
      case "retrieval_result":
        if (row.startedAt === null) row.startedAt = at;
        // A stage that reported an error and fell back stays marked as an error.
        this.setRow(stage, row.status === "error" ? "error" : "complete", at);
        if (row.status === "error") this.addDetails(stage, stageDetails(stage, data));
        else this.setDetails(stage, stageDetails(stage, data));
        break;
      case "stage_skip":
        this.setRow(stage, "skipped", at);
        this.setDetails(stage, String(data.message || "skipped"));
        break;
      case "stage_error":
        if (row.startedAt === null) row.startedAt = at;
        this.setRow(stage, "error", at);
        this.setDetails(stage, el("span", { className: "stage-error-text", text: "Error: " + String(data.error || data.message || "failed") + " (fell back and continued)" }));
        break;
      case "finalize": {
        if (row.status !== "error") this.setRow(stage, "complete", row.endedAt || at);
        var outcome = VERDICTS[verdictOf(data)];
        this.addDetails(stage, A.chip("", outcome.finalized, outcome.tone));
        break;
      }
    }
  };

  // The answer as the model writes it: keep the first `offset` characters, append `text`.
  // It is a draft, shown as plain text until `done` brings the checked answer and its sources.
  RunView.prototype.onAnswerDelta = function (data) {
    if (this.result || typeof data.text !== "string") return;
    var attempt = Number(data.attempt) || 1;
    if (!this.draft || this.draft.attempt !== attempt) this.draft = { attempt: attempt, text: "" };
    var offset = Math.max(0, Math.min(Number(data.offset) || 0, this.draft.text.length));
    this.draft.text = this.draft.text.slice(0, offset) + data.text;
    var target = this.parts.answer;
    A.clear(target);
    var draft = A.renderMarkdown(this.draft.text, el("div", { className: "answer-draft" }));
    A.append(target, draft);
    A.append(target, el("p", { className: "muted draft-note", text: attempt > 1 ? "Writing (attempt " + attempt + ")…" : "Writing…" }));
  };

  // A queued run that no live worker takes yet: say so until its first stage starts.
  RunView.prototype.onWaiting = function (data) {
    if (this.outcome || this.result || this.draft) return;
    A.clear(this.parts.answer);
    A.append(this.parts.answer, el("p", { className: "muted placeholder waiting-note", text: String(data.message || "Waiting for a worker…") }));
  };

  RunView.prototype.onRetry = function (data) {
    var self = this;
    if (this.draft && !this.result) {
      this.draft = null;
      A.clear(this.parts.answer);
      A.append(this.parts.answer, el("p", { className: "muted placeholder", text: "The critic asked for another attempt…" }));
    }
    RETRY_RESET.forEach(function (stage) { if (self.rows[stage]) self.resetRow(stage); });
    var reason = data.reason ? "retrying: " + String(data.reason) : String(data.message || "retrying");
    if (data.escalate_external) reason += " · widening to web search";
    this.retryReason = reason;
    this.setAttempt(data.attempt, data.max_attempts, reason);
    this.setStatus("running", "retrying");
  };

  RunView.prototype.onDone = function (data) {
    var answer = typeof data.answer === "string" ? data.answer : "";
    var sources = Array.isArray(data.sources) ? data.sources : [];
    var metadata = data.metadata && typeof data.metadata === "object" ? data.metadata : {};
    this.result = { answer: answer, sources: sources, metadata: metadata };
    this.stopTimer();
    this.renderAnswer(answer, sources);
    this.renderMeta(metadata);
    if (!answer.trim()) {
      this.outcome = "empty";
      this.setStatus("empty");
      this.showError("The run finished without an answer.", "empty_answer", "No answer");
      return;
    }
    this.outcome = "succeeded";
    this.setStatus("succeeded");
  };

  RunView.prototype.onError = function (data, at) {
    var message = String(data.message || data.error || "The run failed.");
    var code = data.code ? String(data.code) : "";
    var cancelled = code === "cancelled";
    var self = this;
    this.stages.forEach(function (stage) {
      if (self.rows[stage].status === "running") {
        self.setRow(stage, "error", at);
        self.addDetails(stage, el("span", { className: "stage-error-text", text: cancelled ? "stopped: run cancelled" : "stopped: " + message }));
      }
    });
    if (data.stage && this.rows[data.stage] && this.rows[data.stage].status !== "error") {
      this.setRow(data.stage, "error", at);
      this.addDetails(data.stage, el("span", { className: "stage-error-text", text: message }));
    }
    this.stopTimer();
    this.outcome = cancelled ? "cancelled" : code === "interrupted" ? "interrupted" : "failed";
    this.setStatus(this.outcome);
    this.showError(message, code, cancelled ? "Cancelled" : "The run failed");
    if (!this.result) {
      A.clear(this.parts.answer);
      A.append(this.parts.answer, el("p", { className: "muted placeholder", text: cancelled ? "No answer: the run was stopped." : "No answer: the run ended with an error." }));
    }
  };

  RunView.prototype.onStreamEnd = function () {
    this.ended = true;
    this.stopTimer();
    if (!this.outcome) {
      this.outcome = "failed";
      this.setStatus("failed");
      this.showError("The stream ended without an answer or an error.", "no_result", "No answer");
    }
  };

  // ---- answer ----

  RunView.prototype.sourceId = function (index) { return this.idPrefix + "-source-" + index; };

  RunView.prototype.openSource = function (index) {
    var card = document.getElementById(this.sourceId(index));
    if (!card) return;
    card.open = true;
    card.classList.add("flash");
    setTimeout(function () { card.classList.remove("flash"); }, 1600);
    card.scrollIntoView({ block: "nearest", behavior: "smooth" });
    var summary = card.querySelector("summary");
    if (summary) summary.focus({ preventScroll: true });
  };

  // The answer as Markdown (static/js/markdown.js): headings, lists, tables, highlighted code,
  // safe links; each [n] becomes a link that opens its source card.
  RunView.prototype.renderAnswer = function (answer, sources) {
    var self = this;
    var byIndex = {};
    sources.forEach(function (source) { if (source && source.index !== undefined) byIndex[String(source.index)] = source; });
    var target = this.parts.answer;
    A.clear(target);
    if (!answer.trim()) {
      A.append(target, el("p", { className: "muted placeholder", text: "(empty answer)" }));
    } else {
      A.renderMarkdown(answer, target, function (n) { return self.citation(n, byIndex[n]); });
    }
    this.renderSources(sources);
  };

  RunView.prototype.citation = function (n, source) {
    var self = this;
    if (!source) return null;
    return el("a", {
      className: "cite", href: "#" + this.sourceId(n), text: "[" + n + "]",
      "aria-label": "Source " + n + ": " + String(source.file_name || "unknown"),
      dataset: { cite: n },
      onclick: function (event) { event.preventDefault(); self.openSource(n); }
    });
  };

  RunView.prototype.renderSources = function (sources) {
    var self = this;
    var target = this.parts.sources;
    A.clear(target);
    this.parts.sourcesBlock.hidden = false;
    if (!sources.length) {
      A.append(target, el("p", { className: "muted", text: "No sources cited: the answer does not quote retrieved evidence." }));
      return;
    }
    sources.forEach(function (source) {
      if (!source || typeof source !== "object") return;
      var index = String(source.index);
      var section = sectionPath(source);
      var table = sourceTable(source.table);
      var summary = el("summary", null, [
        el("span", { className: "source-index", text: "[" + index + "]" }),
        el("span", { className: "source-name", text: String(source.file_name || "Unknown") }),
        source.page !== "" && source.page !== undefined && source.page !== null ? A.chip("page", source.page) : null,
        source.source_type ? el("span", { className: "badge", text: String(source.source_type) }) : null,
        el("span", { className: "source-score", text: source.rerank_score !== undefined && source.rerank_score !== null ? "score " + num(source.rerank_score, 4) : "" }),
        section ? el("span", { className: "source-section", title: section, text: section }) : null
      ]);
      var body = el("div", { className: "source-body" }, [
        // A table row reads as the table it came from, not as its "header: value" text.
        table || el("p", { className: "preview", text: String(source.content_preview || "") }),
        A.isSafeUrl(source.url) ? el("p", null, el("a", { href: source.url, text: String(source.url), target: "_blank", rel: "noopener noreferrer nofollow" })) : null,
        // A passage of a knowledge base opens its document there (the additive ids).
        Number.isInteger(source.document_id) && Number.isInteger(source.chunk_id) ? el("p", { className: "source-open" }, el("a", {
          href: "/documents/" + source.document_id + "/?chunk=" + source.chunk_id + (Number.isInteger(source.page) ? "&page=" + source.page : ""),
          text: source.page ? "Open the document at page " + source.page : "Open the document at this passage",
          target: "_blank", rel: "noopener"
        })) : null,
        source.content ? el("details", { className: "full-content" }, [
          el("summary", { text: "Show full content (" + String(source.content).length + " characters)" }),
          el("pre", { text: String(source.content) })
        ]) : null
      ]);
      target.appendChild(el("details", { className: "source-card", id: self.sourceId(index), dataset: { index: index } }, [summary, body]));
    });
  };

  // The headings a passage sits under (the additive `section` list), outermost first.
  function sectionPath(source) {
    if (!Array.isArray(source.section)) return "";
    return source.section.map(function (heading) { return String(heading).trim(); })
      .filter(Boolean).join(SECTION_SEPARATOR);
  }

  // A source's `table` ({caption, headers, rows, first_row}) as a small table, or null.
  function sourceTable(table) {
    if (!table || typeof table !== "object" || !Array.isArray(table.rows)) return null;
    var rows = table.rows.filter(Array.isArray);
    if (!rows.length) return null;
    var headers = Array.isArray(table.headers) ? table.headers : [];
    var width = rows.reduce(function (most, row) { return Math.max(most, row.length); }, headers.length);
    function cells(tag, values) {
      var out = [];
      for (var i = 0; i < width; i += 1) {
        var value = values[i] === undefined || values[i] === null ? "" : String(values[i]);
        out.push(el(tag, tag === "th" ? { scope: "col", text: value } : { text: value }));
      }
      return out;
    }
    var first = Number(table.first_row);
    var where = "";
    if (first > 0) where = rows.length > 1 ? "rows " + first + "–" + (first + rows.length - 1) : "row " + first;
    var caption = table.caption ? String(table.caption) : "";
    return el("div", { className: "source-table-wrap" }, el("table", { className: "source-table" }, [
      caption || where ? el("caption", null, [caption, where ? el("span", { className: "muted", text: (caption ? " · " : "") + where }) : null]) : null,
      headers.length ? el("thead", null, el("tr", null, cells("th", headers))) : null,
      el("tbody", null, rows.map(function (row) { return el("tr", null, cells("td", row)); }))
    ]));
  }

  RunView.prototype.renderMeta = function (metadata) {
    var target = this.parts.meta;
    A.clear(target);
    if (metadata.error) {
      // The critic failed; the answer check still gave its verdict, shown below.
      A.append(target, A.chip("critic", "failed: " + String(metadata.error), "warn"));
    }
    var outcome = Object.prototype.hasOwnProperty.call(VERDICTS, metadata.verdict) ? VERDICTS[metadata.verdict] : null;
    if (outcome && outcome.badge) A.append(target, A.chip("", outcome.badge, outcome.tone));
    else if (metadata.grounded !== undefined) A.append(target, A.chip("grounded", yesNo(metadata.grounded), metadata.grounded ? "ok" : "err"));
    if (metadata.confidence !== undefined) A.append(target, A.chip("confidence", num(metadata.confidence, 2)));
    if (metadata.query_type) A.append(target, A.chip("query", String(metadata.query_type)));
    if (metadata.retry_count !== undefined) A.append(target, A.chip("retries", metadata.retry_count, metadata.retry_count ? "warn" : ""));
    if (Array.isArray(metadata.sources_used) && metadata.sources_used.length) {
      var counts = {};
      metadata.sources_used.forEach(function (name) { counts[name] = (counts[name] || 0) + 1; });
      A.append(target, A.chip("context", Object.keys(counts).map(function (k) { return k + " " + counts[k]; }).join(" · ")));
    }
    if (Array.isArray(metadata.issues) && metadata.issues.length) {
      var list = el("ul", { className: "issues" });
      metadata.issues.forEach(function (issue) { list.appendChild(el("li", { text: typeof issue === "string" ? issue : JSON.stringify(issue) })); });
      A.append(target, el("div", { className: "alert alert-warn" }, [el("strong", { text: "Issues the check found" }), list]));
    }
  };

  window.Adrag.RunView = RunView;
})();
