// The open conversation's share control: its owner picks one of their teams, whose members may
// then open it read-only (PUT /api/conversations/<id>/share), or "nobody" to stop sharing.
(function () {
  "use strict";
  var A = window.Adrag;
  var box = document.getElementById("thread-share");
  if (!box) { A.chatShare = { show: function () {} }; return; }
  var select = document.getElementById("thread-share-team");
  var link = document.getElementById("thread-share-link");
  var note = document.getElementById("thread-share-status");
  var openId = null;
  var onSaved = null;

  function showLink(url) {
    link.hidden = !url;
    if (url) link.href = url;
  }

  // saved(sharedWith) is called after a change is saved, so the chat keeps the new state.
  function show(conversationId, sharedWith, saved) {
    openId = conversationId || null;
    onSaved = saved || null;
    box.hidden = !openId;
    select.value = sharedWith || "";
    showLink(openId && sharedWith ? "/shared/conversations/" + encodeURIComponent(openId) + "/" : "");
    note.textContent = "";
  }

  select.addEventListener("change", function () {
    if (!openId) return;
    var id = openId;
    note.textContent = "Saving…";
    A.api("/api/conversations/" + encodeURIComponent(id) + "/share", {
      method: "PUT", body: { team: select.value || null }
    }).then(function (body) {
      if (id !== openId) return;
      if (onSaved) onSaved(body.shared_with || "");
      showLink(body.url);
      note.textContent = body.shared_with ? "Members of " + body.shared_with + " can read it." : "Not shared.";
    }).catch(function (err) {
      note.textContent = err.status === 404 ? "Only its owner can share it." : "Not saved: " + err.message;
    });
  });

  A.chatShare = { show: show };
})();
