#include "broker/admin/console_page.h"

namespace weir::admin {

namespace {

// Plain DOM and fetch(): every browser since 2017 runs it as it is.
constexpr std::string_view kPage = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Weir console</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; margin: 0 0 .2em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
table { border-collapse: collapse; margin-bottom: .5em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #777; }
.bad { color: #b00; font-weight: bold; }
</style>
</head>
<body>
<h1>Weir</h1>
<div id="cluster" class="muted">loading...</div>
<h2>Brokers</h2><div id="brokers"></div>
<h2>Topics</h2><div id="topics"></div>
<h2>Consumer groups</h2><div id="groups"></div>
<h2>Faults</h2><div id="faults"></div>
<p class="muted" id="updated"></p>
<script>
"use strict";
function esc(v) {
  return String(v === null || v === undefined ? "-" : v)
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
function table(headers, rows) {
  if (rows.length === 0) return '<p class="muted">none</p>';
  let h = "<table><tr>" + headers.map(x => "<th>" + esc(x) + "</th>").join("") + "</tr>";
  for (const r of rows) h += "<tr>" + r.map(c => typeof c === "number" ? '<td class="num">' + c + "</td>" : "<td>" + c + "</td>").join("") + "</tr>";
  return h + "</table>";
}
async function json(path) {
  const r = await fetch(path, {cache: "no-store"});
  if (!r.ok) throw new Error(path + ": " + r.status);
  return r.json();
}
async function refresh() {
  try {
    const cluster = await json("/v1/cluster");
    document.getElementById("cluster").textContent =
      "cluster " + cluster.cluster_id + " (" + cluster.mode + "), broker " + cluster.broker_id +
      ", controller " + cluster.controller_id + ", " + cluster.topics + " topics, " + cluster.partitions + " partitions";

    const brokers = await json("/v1/brokers");
    document.getElementById("brokers").innerHTML = table(["id", "rack", "endpoints", ""],
      brokers.map(b => [b.id, esc(b.rack), esc(b.endpoints.map(e => e.listener + "://" + e.host + ":" + e.port).join(", ")),
                        (b.controller ? "controller " : "") + (b.self ? "this broker" : "")]));

    const topics = await json("/v1/topics");
    const rows = [];
    for (const t of topics) {
      if (t.internal) continue;
      const d = await json("/v1/topics/" + encodeURIComponent(t.name));
      for (const p of d.partitions) {
        const under = p.isr.length < p.replicas.length;
        rows.push(['<span class="topic">' + esc(t.name) + "</span>", p.partition, p.leader, esc(p.replicas.join(",")),
                   (under ? '<span class="bad">' : "<span>") + esc(p.isr.join(",")) + "</span>",
                   p.log_start_offset === null ? "-" : p.log_start_offset,
                   p.log_end_offset === null ? "-" : p.log_end_offset,
                   p.size_bytes === null ? "-" : p.size_bytes]);
      }
    }
    const internal = topics.filter(t => t.internal);
    document.getElementById("topics").innerHTML =
      table(["topic", "partition", "leader", "replicas", "ISR", "log start", "log end", "bytes"], rows) +
      (internal.length === 0 ? "" : '<p class="muted">internal: ' +
        internal.map(t => esc(t.name) + " (" + t.partitions + " partitions)").join(", ") + "</p>");

    let groupsHtml = "";
    const groups = await json("/v1/groups");
    for (const g of groups) {
      let d;
      try { d = await json("/v1/groups/" + encodeURIComponent(g.group_id)); } catch (e) { continue; }
      groupsHtml += '<h3 class="group">' + esc(d.group_id) + ' <span class="muted">' + esc(d.state) +
        (d.protocol ? " " + esc(d.protocol) : "") + ", lag " + d.total_lag + "</span></h3>";
      groupsHtml += table(["member", "client id", "host", "assignment"], d.members.map(m =>
        [esc(m.member_id), esc(m.client_id), esc(m.client_host), esc(m.assignment.map(a => a.topic + "-" + a.partition).join(", "))]));
      groupsHtml += table(["topic", "partition", "committed", "high watermark", "lag"], d.offsets.map(o =>
        [esc(o.topic), o.partition, o.committed_offset, o.high_watermark === null ? "-" : o.high_watermark,
         o.lag === null ? "-" : o.lag]));
    }
    document.getElementById("groups").innerHTML = groupsHtml || '<p class="muted">none</p>';

    const faults = await fetch("/v1/faults", {cache: "no-store"});
    document.getElementById("faults").innerHTML = faults.ok
      ? table(["id", "api", "topic", "partition", "action", "error / delay", "fired", "active"],
          (await faults.json()).map(f => [f.id, esc(f.api), esc(f.topic), esc(f.partition), esc(f.action),
                                          esc(f.error || (f.delay_ms !== undefined ? f.delay_ms + " ms" : "")), f.fired, esc(f.active)]))
      : '<p class="muted">fault injection is off</p>';
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("updated").innerHTML = '<span class="bad">' + esc(e.message) + "</span>";
  }
}
refresh();
setInterval(refresh, 2000);
</script>
</body>
</html>
)html";

}  // namespace

std::string_view console_page() { return kPage; }

}  // namespace weir::admin
