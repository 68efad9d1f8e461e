// The Teams page (staff): make a team, pick one to see its members and knowledge bases, add a
// member by user name, remove one. The API (/api/teams) audits every change.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var list = document.getElementById("team-list");
  if (!list) return;
  var detail = document.getElementById("team-detail");
  var title = document.getElementById("team-title");
  var members = document.getElementById("member-rows");
  var kbs = document.getElementById("team-kbs");
  var teamStatus = document.getElementById("team-status");
  var memberStatus = document.getElementById("member-status");
  var openId = null;

  function loadTeams() {
    return A.api("/api/teams").then(function (teams) {
      A.clear(list);
      if (!teams.length) list.appendChild(el("li", { className: "muted small", text: "No teams yet." }));
      teams.forEach(function (team) {
        list.appendChild(el("li", null, el("button", {
          type: "button", className: "conv-item team-item", dataset: { teamId: String(team.id) },
          "aria-current": String(team.id) === String(openId) ? "true" : null,
          onclick: function () { openTeam(team.id); }
        }, [
          el("span", { className: "conv-title", text: String(team.name) }),
          el("span", { className: "conv-meta", text: A.plural(team.member_count, "member") + " · " + A.plural(team.knowledge_base_count, "knowledge base") })
        ])));
      });
    }).catch(function (err) {
      A.clear(list);
      list.appendChild(el("li", { className: "error small", text: "Teams could not be loaded (" + err.message + ")." }));
    });
  }

  function showTeam(team) {
    openId = team.id;
    detail.hidden = false;
    detail.dataset.teamId = String(team.id);
    title.textContent = team.name;
    A.clear(members);
    if (!team.members.length) members.appendChild(el("tr", null, el("td", { colSpan: 3, className: "muted", text: "No members yet." })));
    team.members.forEach(function (member) {
      var remove = el("button", { type: "button", className: "danger small", text: "Remove" });
      remove.addEventListener("click", function () {
        if (!window.confirm("Take " + member.username + " out of " + team.name + "? They lose its knowledge bases.")) return;
        A.api("/api/teams/" + team.id + "/members/" + member.id, { method: "DELETE" }).then(function (body) {
          memberStatus.textContent = member.username + " removed.";
          showTeam(body);
          loadTeams();
        }).catch(function (err) { memberStatus.textContent = "Not removed: " + err.message; });
      });
      members.appendChild(el("tr", { dataset: { username: member.username } }, [
        el("td", { text: String(member.username) }),
        el("td", { text: member.is_staff ? "yes" : "no" }),
        el("td", null, remove)
      ]));
    });
    A.clear(kbs);
    if (!team.knowledge_bases.length) kbs.appendChild(el("li", { className: "muted", text: "No knowledge base is shared with this team." }));
    team.knowledge_bases.forEach(function (kb) {
      kbs.appendChild(el("li", null, [
        el("strong", { text: String(kb.name) }),
        el("span", { className: "muted", text: " · " + A.plural(kb.document_count, "document") + " · owned by " + kb.owner })
      ]));
    });
    Array.prototype.forEach.call(list.querySelectorAll(".team-item"), function (item) {
      if (item.dataset.teamId === String(team.id)) item.setAttribute("aria-current", "true");
      else item.removeAttribute("aria-current");
    });
  }

  function openTeam(id) {
    memberStatus.textContent = "";
    return A.api("/api/teams/" + encodeURIComponent(id)).then(showTeam).catch(function (err) {
      memberStatus.textContent = "The team could not be loaded: " + err.message;
    });
  }

  document.getElementById("team-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var name = document.getElementById("team-name");
    teamStatus.textContent = "Making…";
    A.api("/api/teams", { method: "POST", body: { name: name.value.trim() } }).then(function (team) {
      teamStatus.textContent = team.name + " made.";
      name.value = "";
      return loadTeams().then(function () { return openTeam(team.id); });
    }).catch(function (err) { teamStatus.textContent = "Not made: " + err.message; });
  });

  document.getElementById("member-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if (openId === null) return;
    var name = document.getElementById("member-name");
    memberStatus.textContent = "Adding…";
    A.api("/api/teams/" + openId + "/members", { method: "POST", body: { username: name.value.trim() } }).then(function (body) {
      memberStatus.textContent = name.value.trim() + " added.";
      name.value = "";
      showTeam(body);
      loadTeams();
    }).catch(function (err) { memberStatus.textContent = "Not added: " + err.message; });
  });

  loadTeams();
})();
