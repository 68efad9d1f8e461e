// The chat page's sidebar: the caller's recent conversations (GET /api/conversations), the open
// one marked. chat.js opens one when it is picked and tells the sidebar which is open.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var convList = document.getElementById("conv-list");
  if (!convList) return;
  var activeId = null;

  function ago(iso) {
    var seconds = (Date.now() - Date.parse(iso)) / 1000;
    if (isNaN(seconds)) return "";
    if (seconds < 60) return "just now";
    if (seconds < 3600) return Math.floor(seconds / 60) + " min ago";
    if (seconds < 86400) return Math.floor(seconds / 3600) + " h ago";
    return new Date(iso).toLocaleDateString(undefined, { month: "short", day: "numeric" });
  }

  function markActive(id) {
    if (id !== undefined) activeId = id;
    Array.prototype.forEach.call(convList.querySelectorAll(".conv-item"), function (item) {
      if (item.dataset.conversationId === activeId) item.setAttribute("aria-current", "true");
      else item.removeAttribute("aria-current");
    });
  }

  function loadConversations(openConversation) {
    return A.api("/api/conversations?page_size=30").then(function (body) {
      A.clear(convList);
      var items = body.results || [];
      if (!items.length) {
        convList.appendChild(el("li", { className: "muted small", text: "No conversations yet: your questions start them." }));
      }
      items.forEach(function (item) {
        var turns = item.run_count + (item.run_count === 1 ? " turn" : " turns");
        convList.appendChild(el("li", null, el("button", {
          type: "button", className: "conv-item", title: String(item.title || ""),
          dataset: { conversationId: item.id },
          onclick: function () { openConversation(item.id); }
        }, [
          el("span", { className: "conv-title", text: String(item.title || "Untitled") }),
          el("span", { className: "conv-meta" }, [turns + " · ", el("time", { datetime: item.updated_at, title: A.formatTime(item.updated_at), text: ago(item.updated_at) })])
        ])));
      });
      markActive();
    }).catch(function (err) {
      A.clear(convList);
      convList.appendChild(el("li", { className: "error small", text: "Conversations could not be loaded (" + err.message + ")." }));
    });
  }

  A.chatSidebar = { load: loadConversations, markActive: markActive };
})();
