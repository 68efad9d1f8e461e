// A front end served from another origin (tests/portal/test_cross_origin.py): it uses the
// portal's API with the visitor's session (fetch with credentials, EventSource withCredentials),
// takes the CSRF token from /api/csrf, and reads the answer's event stream as it arrives.
(function () {
  "use strict";
  var params = new URLSearchParams(location.search);
  var api = params.get("api");
  var question = params.get("q") || "What did Marie Curie discover?";
  var body = document.body;
  var results = { postTypes: [], eventTypes: [] };

  function finish(state) {
    body.dataset.results = JSON.stringify(results);
    body.dataset.state = state;
  }

  function call(path, options) {
    return fetch(api + path, Object.assign({ credentials: "include" }, options || {}));
  }

  // SSE frames are separated by a blank line; `data:` holds one JSON line.
  function framesOf(text) {
    return text.split("\n\n").map(function (block) {
      var data = block.split("\n").filter(function (line) { return line.indexOf("data: ") === 0; });
      return data.length ? JSON.parse(data[0].slice(6)) : null;
    }).filter(Boolean);
  }

  async function readPostStream(response) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      var end = buffer.lastIndexOf("\n\n");
      if (end < 0) continue;
      framesOf(buffer.slice(0, end)).forEach(function (frame) {
        results.postTypes.push(frame.type);
        if (frame.type === "done") {
          results.answer = frame.data.answer;
          document.getElementById("answer").textContent = frame.data.answer;
        }
      });
      buffer = buffer.slice(end + 2);
    }
  }

  function replayEvents(runId) {
    return new Promise(function (resolve, reject) {
      var source = new EventSource(api + "/api/runs/" + runId + "/events", { withCredentials: true });
      ["stage_start", "stage_complete", "done", "stream_end"].forEach(function (type) {
        source.addEventListener(type, function () {
          results.eventTypes.push(type);
          if (type === "stream_end") { source.close(); resolve(); }
        });
      });
      source.onerror = function () { source.close(); reject(new Error("the event stream failed")); };
    });
  }

  async function main() {
    var listed = await call("/api/knowledge-bases");
    if (listed.status === 401) {
      var link = document.getElementById("sign-in");
      link.href = api + "/accounts/login/?next=" + encodeURIComponent(location.href);
      link.hidden = false;
      return finish("signed-out");
    }
    var kbs = (await listed.json()).knowledge_bases;
    results.knowledgeBases = kbs.map(function (kb) { return kb.name; });
    kbs.forEach(function (kb) {
      var item = document.createElement("li");
      item.textContent = kb.name;
      document.getElementById("knowledge-bases").appendChild(item);
    });
    var token = (await (await call("/api/csrf")).json()).csrf_token;
    var asked = await call("/api/query", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": token },
      body: JSON.stringify({ query: question, provider: "scripted", knowledge_bases: kbs.map(function (kb) { return kb.id; }) })
    });
    results.postStatus = asked.status;
    results.runId = asked.headers.get("X-Run-Id");
    document.getElementById("run-id").textContent = results.runId || "";
    await readPostStream(asked);
    await replayEvents(results.runId);
    finish("done");
  }

  main().catch(function (error) {
    results.error = String(error);
    document.getElementById("error").textContent = results.error;
    finish("refused");
  });
})();
