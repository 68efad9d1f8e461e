// The chat page: ask, stream the run live (fetch + ReadableStream), stop it, and resume it after a
// refresh from the run's event log (GET /api/runs/<id>, then EventSource on /api/runs/<id>/events).
// Questions form conversations: a follow-up is sent with its conversation's id, earlier turns show
// above it, and the sidebar lists recent conversations (GET /api/conversations) to reopen one.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var root = document.getElementById("chat");
  if (!root) return;

  var ACTIVE_KEY = "adrag-active-run";
  var ACTIVE_STATUSES = ["queued", "running"];
  var view = new A.RunView(document.getElementById("run-view"), { idPrefix: "chat" });
  var form = document.getElementById("ask-form");
  var question = document.getElementById("question");
  var askButton = document.getElementById("ask-button");
  var stopButton = document.getElementById("stop-button");
  var formStatus = document.getElementById("form-status");
  var threadCard = document.getElementById("thread-card");
  var thread = document.getElementById("thread");
  var threadMeta = document.getElementById("thread-meta");
  var threadExport = document.getElementById("thread-export");
  var currentTurn = document.getElementById("current-turn");
  var FIRST_PLACEHOLDER = question.placeholder;

  var current = null;
  // The open conversation: its id (null until the first answer starts one) and its earlier turns.
  var conversation = { id: null, turns: [] };

  function status(text) { formStatus.textContent = text || ""; }

  function setBusy(busy) {
    askButton.disabled = busy;
    askButton.textContent = busy ? "Running…" : "Ask";
    stopButton.hidden = !busy;
    stopButton.disabled = false;
    stopButton.textContent = "Stop";
    root.dataset.busy = busy ? "1" : "0";
  }

  function rememberRun(runId) {
    try { sessionStorage.setItem(ACTIVE_KEY, runId); } catch (e) { /* private mode: the URL still has it */ }
    var url = new URL(window.location.href);
    url.searchParams.set("run", runId);
    window.history.replaceState(null, "", url.toString());
    root.dataset.runId = runId;
    view.setRunId(runId);
  }

  function forgetActive() {
    try { sessionStorage.removeItem(ACTIVE_KEY); } catch (e) { /* nothing stored */ }
  }

  function detach(run) {
    if (!run) return;
    run.detached = true;
    if (run.controller) run.controller.abort();
    if (run.source) run.source.close();
  }

  function finish(run) {
    if (run.finished) return;
    run.finished = true;
    if (run.source) run.source.close();
    if (run !== current) return;
    setBusy(false);
    forgetActive();
    root.dataset.state = view.outcome || "ended";
    status(view.outcome === "succeeded" ? "Done." : "");
  }

  function isStreamTimeout(frame) {
    var data = frame.data || {};
    return frame.type === "error" && !data.code && !data.stage && data.message === "Stream timeout";
  }

  function handleFrame(run, frame, at) {
    if (run !== current || run.finished || !frame || typeof frame.type !== "string") return;
    if (isStreamTimeout(frame)) {
      // The reader timed out, not the run: keep following it from the event log.
      if (run.mode === "post") {
        if (run.controller) run.controller.abort();
        follow(run, run.lastSeq);
      }
      return;
    }
    if (frame.type === "stage_complete" && frame.data && frame.data.stage === "planner") {
      noteStandalone(run, frame.data.standalone_query);
    }
    view.apply(frame, at);
    if (frame.type === "done" || frame.type === "error") {
      run.terminal = true;
      setBusy(false);
      forgetActive();
    }
    if (frame.type === "stream_end") finish(run);
  }

  // ---- the POST stream ----

  function ask() {
    var query = question.value.trim();
    if (!query) {
      status("Type a question first.");
      question.focus();
      return;
    }
    keepTurn(current);
    detach(current);
    var run = current = { runId: null, lastSeq: 0, mode: "post", controller: new AbortController(), query: query };
    showCurrentTurn(query, "");
    view.reset("Waiting for the first stage…");
    view.setStatus("starting");
    root.dataset.state = "running";
    view.setRunId(null);
    setBusy(true);
    status("");
    var body = { query: query, answer_deltas: true };
    var pickers = A.chatPickers; // chat-pickers.js
    if (pickers.provider()) body.provider = pickers.provider();
    if (pickers.model()) body.model = pickers.model();
    var kbs = pickers.selectedKbs();
    if (kbs) body.knowledge_bases = kbs;
    var filters = A.chatFilters ? A.chatFilters() : null; // chat-filters.js
    if (filters) body.filters = filters;
    if (conversation.id) body.conversation = conversation.id;
    fetch("/api/query", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream", "X-CSRFToken": A.csrfToken() },
      body: JSON.stringify(body),
      signal: run.controller.signal
    }).then(function (res) {
      if (!res.ok) {
        return res.text().then(function (text) {
          var data = {};
          try { data = JSON.parse(text); } catch (e) { data = { error: "The server answered " + res.status + "." }; }
          if (run !== current) return;
          // A conversation deleted meanwhile, or one that is not ours to continue (staff
          // reading another user's): the next question starts a new conversation instead.
          if (res.status === 404 && body.conversation && /conversation/i.test(data.error || "")) {
            setConversation(null);
          }
          view.setStatus("failed", "not started");
          view.showError(data.error || "The question could not be asked.", data.code || "http_" + res.status, res.status === 429 ? "Too many runs" : "Not started");
          run.terminal = true;
          finish(run);
        });
      }
      run.runId = res.headers.get("X-Run-Id");
      if (run === current) {
        joinConversation(run, res.headers.get("X-Conversation-Id"));
        question.value = "";
      }
      if (run.runId && run === current) rememberRun(run.runId);
      // One connection per question: the POST stream carries the answer as it is written
      // (answer_deltas); the event log is followed only if that connection is lost.
      return readStream(run, res.body);
    }).catch(function (err) {
      if (run !== current || run.finished || (err && err.name === "AbortError")) return;
      lostStream(run, err && err.message);
    });
  }

  function readStream(run, body) {
    var reader = body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";

    function take(line) {
      line = line.replace(/\r$/, "");
      if (line.indexOf("id: ") === 0) {
        var seq = parseInt(line.slice(4), 10);
        if (!isNaN(seq)) run.lastSeq = seq;
      } else if (line.indexOf("data: ") === 0) {
        var frame;
        try { frame = JSON.parse(line.slice(6)); } catch (e) { return; }
        handleFrame(run, frame, Date.now());
      }
      // `: keep-alive` comments and blank separators carry nothing to show.
    }

    function pump() {
      return reader.read().then(function (chunk) {
        if (run.detached || run.mode !== "post") { reader.cancel().catch(function () {}); return; }
        if (chunk.done) {
          buffer += decoder.decode();
          if (buffer) take(buffer);
          if (!run.finished) lostStream(run, "the stream closed early");
          return;
        }
        buffer += decoder.decode(chunk.value, { stream: true });
        var lines = buffer.split("\n");
        buffer = lines.pop();
        lines.forEach(take);
        if (run.finished) { reader.cancel().catch(function () {}); return; }
        return pump();
      });
    }
    return pump();
  }

  function lostStream(run, reason) {
    if (run.runId && !run.terminal) {
      status("Connection lost (" + (reason || "network") + "); following the run from its log…");
      follow(run, run.lastSeq);
      return;
    }
    if (!run.terminal) {
      view.setStatus("failed");
      view.showError("The connection to the server was lost" + (reason ? ": " + reason : "") + ".", "network", "Connection lost");
    }
    finish(run);
  }

  // ---- following a run from its event log ----

  function follow(run, after) {
    if (run !== current || run.finished) return;
    run.mode = "eventsource";
    var source = new EventSource("/api/runs/" + encodeURIComponent(run.runId) + "/events?after=" + (after || 0));
    run.source = source;
    function onFrame(event) {
      if (run.source !== source) return;
      var seq = parseInt(event.lastEventId, 10);
      if (!isNaN(seq)) run.lastSeq = seq;
      var frame;
      try { frame = JSON.parse(event.data); } catch (e) { return; }
      status("");
      handleFrame(run, frame, Date.now());
    }
    A.RunView.EVENT_TYPES.forEach(function (type) {
      if (type !== "error") source.addEventListener(type, onFrame);
    });
    source.addEventListener("message", onFrame);
    // `error` is both a server frame (a MessageEvent with data) and EventSource's own connection
    // signal (a plain Event): only the first is the run's error.
    source.addEventListener("error", function (event) {
      if (typeof event.data === "string") { onFrame(event); return; }
      if (run.finished || run.source !== source) return;
      if (source.readyState === EventSource.CLOSED) {
        if (run.terminal) { finish(run); return; }
        view.setStatus("failed", "disconnected");
        view.showError("The server closed the event stream before the run ended.", "stream_closed", "Connection lost");
        finish(run);
      } else {
        status("Reconnecting to the run…");
      }
    });
  }

  // options.fillQuestion (default true) puts the run's question back in the box (after a refresh);
  // options.conversation is the run's conversation, already loaded (reopened from the sidebar).
  function resume(runId, options) {
    options = options || {};
    detach(current);
    var run = current = { runId: runId, lastSeq: 0, mode: "resume" };
    view.reset("Resuming the run…");
    root.dataset.state = "running";
    view.setStatus("starting", "resuming");
    root.dataset.runId = runId;
    view.setRunId(runId);
    setBusy(true);
    A.api("/api/runs/" + encodeURIComponent(runId)).then(function (detail) {
      if (run !== current) return;
      if (options.fillQuestion !== false) question.value = detail.query || "";
      run.query = detail.query || "";
      showCurrentTurn(run.query, detail.standalone_query);
      openThreadOf(run, detail.conversation || null, options.conversation);
      (detail.events || []).forEach(function (event) {
        run.lastSeq = event.seq;
        handleFrame(run, event.frame, Date.parse(event.time));
      });
      if (run.finished) return;
      if (ACTIVE_STATUSES.indexOf(detail.status) !== -1) status("Resumed: following the run live.");
      follow(run, run.lastSeq);
    }).catch(function (err) {
      if (run !== current) return;
      forgetActive();
      var url = new URL(window.location.href);
      url.searchParams.delete("run");
      window.history.replaceState(null, "", url.toString());
      view.reset();
      view.setRunId(null);
      showCurrentTurn("", "");
      setBusy(false);
      root.dataset.state = "unavailable";
      status(err.status === 404 ? "That run is not available." : "The run could not be loaded: " + err.message);
    });
  }

  // ---- stop ----

  stopButton.addEventListener("click", function () {
    var run = current;
    if (!run || !run.runId || run.finished) return;
    stopButton.disabled = true;
    stopButton.textContent = "Stopping…";
    A.api("/api/runs/" + encodeURIComponent(run.runId) + "/cancel", { method: "POST" }).then(function () {
      status("Stopping the run…");
    }).catch(function (err) {
      if (err.status === 409) { status("The run had already finished."); return; }
      stopButton.disabled = false;
      stopButton.textContent = "Stop";
      status("Could not stop the run: " + err.message);
    });
  });

  // ---- conversations ----

  function sameQuestion(a, b) {
    return String(a || "").replace(/\s+/g, " ").trim().toLowerCase() === String(b || "").replace(/\s+/g, " ").trim().toLowerCase();
  }

  function setUrlParam(name, value) {
    var url = new URL(window.location.href);
    if (value) url.searchParams.set(name, value); else url.searchParams.delete(name);
    window.history.replaceState(null, "", url.toString());
  }

  function showCurrentTurn(query, standalone) {
    currentTurn.hidden = !query;
    document.getElementById("current-question").textContent = query || "";
    var line = document.getElementById("current-standalone");
    var differs = standalone && !sameQuestion(standalone, query);
    line.textContent = differs ? "Searched as: " + standalone : "";
    line.hidden = !differs;
  }

  // The planner's stage_complete says how a follow-up was read on its own.
  function noteStandalone(run, standalone) {
    if (typeof standalone !== "string" || !standalone) return;
    run.standalone = standalone;
    if (run === current) showCurrentTurn(run.query, standalone);
  }

  // A new question moves the run on screen, if it belongs to the open conversation, into the thread.
  function keepTurn(run) {
    if (!run || !run.runId || !conversation.id || run.conversationId !== conversation.id) return;
    if (conversation.turns.some(function (turn) { return turn.id === run.runId; })) return;
    var result = view.result || {};
    conversation.turns.push({
      id: run.runId, query: run.query || "", standalone_query: run.standalone || "",
      status: view.outcome || "running", answer: result.answer || "", sources: result.sources || []
    });
    renderThread();
  }

  function setConversation(id) {
    if (conversation.id !== id) conversation = { id: id, turns: [] };
    if (id) root.dataset.conversationId = id; else delete root.dataset.conversationId;
    setUrlParam("conversation", id);
    renderThread();
    A.chatSidebar.markActive(conversation.id);
  }

  // The answer to a question names its conversation (a new one for a first question).
  function joinConversation(run, id) {
    if (!id) return;
    run.conversationId = id;
    setConversation(id);
    // The conversation is new, or moves to the top of the list.
    A.chatSidebar.load(openConversation);
  }

  // Show the turns of a run's conversation that came before it.
  function openThreadOf(run, id, loaded) {
    run.conversationId = id;
    setConversation(id);
    if (!id) return;
    var got = loaded ? Promise.resolve(loaded) : A.api("/api/conversations/" + encodeURIComponent(id));
    got.then(function (detail) {
      if (conversation.id !== id || run !== current) return;
      var runs = detail.runs || [];
      var at = runs.map(function (turn) { return turn.id; }).indexOf(run.runId);
      conversation.turns = at === -1 ? runs : runs.slice(0, at);
      conversation.sharedWith = detail.shared_with || "";
      renderThread();
    }).catch(function () { /* the run still shows; only its earlier turns are missing */ });
  }

  function openConversation(id) {
    status("");
    A.api("/api/conversations/" + encodeURIComponent(id)).then(function (detail) {
      var runs = detail.runs || [];
      if (!runs.length) { newConversation(); return; }
      var last = runs[runs.length - 1];
      question.value = "";
      setUrlParam("run", last.id);
      resume(last.id, { fillQuestion: false, conversation: detail });
    }).catch(function (err) {
      setUrlParam("conversation", null);
      status(err.status === 404 ? "That conversation is not available." : "The conversation could not be loaded: " + err.message);
    });
  }

  function newConversation() {
    detach(current);
    current = null;
    forgetActive();
    setUrlParam("run", null);
    setConversation(null);
    view.reset();
    view.setRunId(null);
    delete root.dataset.runId;
    root.dataset.state = "new";
    setBusy(false);
    showCurrentTurn("", "");
    status("");
    question.value = "";
    question.focus();
  }

  var TURN_STATUS_TEXT = {
    running: "Still running: open the run to follow it.", queued: "Still running: open the run to follow it.",
    cancelled: "No answer: the run was stopped.", failed: "No answer: the run ended with an error.",
    interrupted: "No answer: the run was interrupted."
  };

  function turnNode(turn) {
    var sources = Array.isArray(turn.sources) ? turn.sources : [];
    var byIndex = {};
    sources.forEach(function (source) { if (source) byIndex[String(source.index)] = source; });
    var answer = el("div", { className: "answer-body turn-answer-body" });
    if (turn.answer && String(turn.answer).trim()) {
      A.renderMarkdown(String(turn.answer), answer, function (n) {
        var source = byIndex[n];
        return source ? el("span", { className: "cite-ref", title: String(source.file_name || ""), text: "[" + n + "]" }) : null;
      });
    } else {
      answer.appendChild(el("p", { className: "muted placeholder", text: TURN_STATUS_TEXT[turn.status] || "No answer." }));
    }
    var files = sources.map(function (source) { return A.chip("[" + source.index + "]", String(source.file_name || "unknown")); });
    var standalone = turn.standalone_query && !sameQuestion(turn.standalone_query, turn.query)
      ? el("p", { className: "turn-standalone muted", text: "Searched as: " + turn.standalone_query }) : null;
    return el("li", { className: "turn", dataset: { runId: turn.id, status: turn.status || "" } }, [
      el("div", { className: "turn-question" }, [
        el("span", { className: "turn-label", text: "You" }),
        el("p", { className: "turn-text", text: String(turn.query || "") }),
        standalone
      ]),
      el("div", { className: "turn-answer" }, [
        answer,
        el("div", { className: "turn-foot" }, files.concat([
          el("a", { className: "run-link", href: "/history/" + encodeURIComponent(turn.id) + "/", text: "run " + String(turn.id).slice(0, 8) })
        ]))
      ])
    ]);
  }

  function renderThread() {
    A.clear(thread);
    var turns = conversation.id ? conversation.turns : [];
    threadCard.hidden = !turns.length;
    threadMeta.textContent = turns.length ? turns.length + (turns.length === 1 ? " earlier turn" : " earlier turns") : "";
    threadExport.hidden = !turns.length;
    if (conversation.id) threadExport.href = "/api/conversations/" + encodeURIComponent(conversation.id) + "/export?format=md";
    var open = conversation;
    A.chatShare.show(open.id, open.sharedWith, function (team) { open.sharedWith = team; });
    turns.forEach(function (turn) { thread.appendChild(turnNode(turn)); });
    question.placeholder = conversation.id ? "Ask a follow-up…" : FIRST_PLACEHOLDER;
  }

  document.getElementById("new-conversation").addEventListener("click", newConversation);

  form.addEventListener("submit", function (event) { event.preventDefault(); ask(); });
  question.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); ask(); }
  });

  setBusy(false);
  root.dataset.ready = "0";
  A.chatPickers.load(status).then(function () {
    root.dataset.ready = "1";
  });
  var fromUrl = new URL(window.location.href).searchParams.get("run");
  var conversationFromUrl = new URL(window.location.href).searchParams.get("conversation");
  var stored = null;
  try { stored = sessionStorage.getItem(ACTIVE_KEY); } catch (e) { stored = null; }
  if (fromUrl || (stored && !conversationFromUrl)) resume(fromUrl || stored);
  else if (conversationFromUrl) openConversation(conversationFromUrl);
  A.chatSidebar.load(openConversation);
})();
