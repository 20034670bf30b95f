// The live-calls table: each "call" event from the page's event stream becomes the table's
// first row. Text goes in with textContent only: an event's fields are never parsed as HTML.
"use strict";
(() => {
  const table = document.getElementById("live-calls");
  const status = document.getElementById("live-status");
  if (!table || !table.dataset.source) return;
  const body = table.tBodies[0];
  const MAX_ROWS = 200;
  const say = (text, state) => {
    status.textContent = text;
    table.dataset.state = state;
  };
  const addRow = (cells, kind) => {
    const row = body.insertRow(0);
    row.className = kind + " fresh";
    for (const text of cells) row.insertCell().textContent = text;
    while (body.rows.length > MAX_ROWS) body.deleteRow(-1);
    return row;
  };
  const source = new EventSource(table.dataset.source);
  source.addEventListener("open", () => say("live", "open"));
  source.addEventListener("error", () => say("disconnected; retrying…", "retrying"));
  source.addEventListener("call", (message) => {
    const call = JSON.parse(message.data);
    const at = String(call.at || "").replace("T", " ").slice(0, 19);
    const duration = Number(call.duration_ms || 0).toFixed(1) + " ms";
    const tool = call.alias ? `${call.alias}/${call.tool}` : String(call.tool);  // an unknown tool has no alias
    const cells = [at, call.principal || "", tool, String(call.code), duration];
    const row = addRow(cells, call.code === "ok" ? "ok" : "error");
    row.dataset.code = String(call.code);
  });
  source.addEventListener("events.dropped", (message) => {
    const dropped = JSON.parse(message.data);
    addRow(["", "", `${dropped.count} calls not shown (the page read too slowly)`, "", ""], "error");
  });
})();
