// The approvals page stays current: on each approval event from the page's stream, the page
// is fetched again and its pending requests are merged in — new ones added, decided ones
// removed — so a reason being typed in a request that is still pending is left alone. The
// fetched HTML is the server's own rendering of this page (escaped there); nothing from an
// event is ever put into the page.
"use strict";
(() => {
  const list = document.getElementById("approvals-pending");
  const status = document.getElementById("approvals-status");
  if (!list || !list.dataset.source) return;
  const say = (text, state) => {
    status.textContent = text;
    list.dataset.state = state;
  };
  const sections = (root) => new Map(
    Array.from(root.querySelectorAll("section.approval")).map((section) => [section.dataset.approval, section]),
  );
  let refreshing = null;
  const refresh = async () => {
    const response = await fetch(list.dataset.page, { credentials: "same-origin", cache: "no-store" });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    const freshList = fresh.getElementById("approvals-pending");
    if (!freshList) return;
    const shown = sections(list);
    const wanted = sections(freshList);
    for (const [id, section] of shown) if (!wanted.has(id)) section.remove();
    let previous = list.querySelector("p.empty");
    for (const [id, section] of wanted) {
      const current = shown.get(id) || document.importNode(section, true);
      if (current.previousElementSibling !== previous) previous.after(current);
      previous = current;
    }
    list.querySelector("p.empty").hidden = wanted.size > 0;
    list.dataset.count = String(wanted.size);
  };
  const schedule = () => {
    refreshing = (refreshing || Promise.resolve()).then(refresh, refresh);
  };
  const source = new EventSource(list.dataset.source);
  source.addEventListener("open", () => say("live", "open"));
  source.addEventListener("error", () => say("disconnected; retrying…", "retrying"));
  source.addEventListener("audit", schedule);
  source.addEventListener("events.dropped", schedule);
})();
