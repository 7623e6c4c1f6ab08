// Live dashboard: polls /status once a second and redraws the charts from its per-second history.
(function () {
  'use strict';
  const charts = {};
  for (const id of ['throughput', 'latency', 'watermark', 'l0', 'admission', 'io']) {
    const fig = document.getElementById('chart-' + id);
    charts[id] = { fig, chart: new LineChart(fig.querySelector('canvas')) };
  }

  const MIB = 1024 * 1024;
  const esc = s => String(s === null || s === undefined ? '' : s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  function perPartition(history, names, field, scale) {
    return names.map(p => ({
      name: p,
      points: history.map(h => {
        const v = h.partitions && h.partitions[p] ? h.partitions[p][field] : null;
        return [h.t, v === null || v === undefined ? null : v * (scale || 1)];
      })
    }));
  }

  function render(st) {
    const hist = st.history || [];
    const names = Object.keys(st.partitions || {});
    const markers = (st.events || []).map(e => e.t);
    const ioClasses = hist.length ? Object.keys(hist[hist.length - 1].ioBytesPerSecond || {}) : [];
    const activeIo = ioClasses.filter(c => hist.some(h => (h.ioBytesPerSecond || {})[c] > 0));
    const specs = {
      throughput: {
        series: [{ name: 'server (all commands)', points: hist.map(h => [h.t, h.commandsPerSecond]) }]
          .concat(perPartition(hist, names, 'opsPerSecond').map(s => ({ name: 'engine ' + s.name, points: s.points })))
      },
      latency: {
        unit: '', series: [
          { name: 'p99', points: hist.map(h => [h.t, h.p99Ms]) },
          { name: 'p50', points: hist.map(h => [h.t, h.p50Ms]) }]
      },
      watermark: { max: 1, series: perPartition(hist, names, 'memtableWatermark') },
      l0: { series: perPartition(hist, names, 'l0Files') },
      admission: { series: perPartition(hist, names, 'admissionRate') },
      io: {
        series: (activeIo.length ? activeIo : ioClasses.slice(0, 1)).map(c => ({
          name: c, points: hist.map(h => [h.t, ((h.ioBytesPerSecond || {})[c] || 0) / MIB])
        }))
      }
    };
    let total = 0, withData = 0;
    for (const id in charts) {
      const spec = specs[id];
      spec.markers = markers;
      const n = charts[id].chart.draw(spec);
      charts[id].fig.dataset.points = n;
      total += n;
      if (n > 0) withData++;
    }
    document.getElementById('charts').dataset.points = total;
    document.body.dataset.points = total;
    document.body.dataset.chartsWithData = withData;
    document.body.dataset.state = 'live';

    const s = st.server || {};
    const n = st.node || {};
    document.getElementById('summary').innerHTML =
      `profile <b>${esc(n.profile)}</b> &middot; controls <b>${esc((n.controls || []).join(', ') || 'none')}</b>` +
      ` &middot; ${n.priorityEnv ? 'priority Env' : 'RocksDB default Env'} &middot; up ${esc(s.uptimeSeconds)} s` +
      ` &middot; ${esc(s.connections)} connections &middot; ${esc(Math.round(s.commandsPerSecond || 0))} req/s` +
      ` &middot; <span class="${s.busy ? 'bad' : ''}">${esc(s.busy)} BUSY</span>` +
      ` &middot; <span class="${s.quota ? 'bad' : ''}">${esc(s.quota)} QUOTA</span>`;

    let rows = '<table><thead><tr><th>partition</th><th>ops/s</th><th>watermark</th><th>L0 files</th>' +
      '<th>pending compaction</th><th>admission rate</th><th>queued</th><th>flushes</th><th>compactions</th><th>stall</th><th>health</th></tr></thead><tbody>';
    for (const p of names) {
      const x = st.partitions[p];
      rows += `<tr><th>${esc(p)}</th><td>${esc(Math.round(x.opsPerSecond))}</td><td>${esc((x.memtableWatermark * 100).toFixed(0))} %</td>` +
        `<td>${esc(x.l0Files)}</td><td>${esc((x.pendingCompactionBytes / MIB).toFixed(1))} MiB</td>` +
        `<td>${x.admissionRate === null ? 'unlimited' : esc(Math.round(x.admissionRate))}</td><td>${esc(x.admissionQueued)}</td>` +
        `<td>${esc(x.runningFlushes)}</td><td>${esc(x.runningCompactions)}</td>` +
        `<td class="${x.stall !== 'NORMAL' ? 'stall' : ''}">${esc(x.stall)}</td><td class="${x.health !== 'ok' ? 'stall' : ''}">${esc(x.health)}</td></tr>`;
    }
    document.getElementById('partitions').innerHTML = rows + '</tbody></table>';

    const ev = (st.events || []).slice(-30).reverse();
    document.querySelector('#events tbody').innerHTML = ev.map(e =>
      `<tr><td>${esc(new Date(e.t).toLocaleTimeString())}</td><td>${esc(e.controller)}</td><td>${esc(e.partition)}</td>` +
      `<td>${esc(e.knob)}</td><td>${esc(e.action)}</td><td>${esc(e.outcome)}</td><td>${esc(e.reason)}</td></tr>`).join('') ||
      '<tr><td colspan="7">no control events yet</td></tr>';
  }

  async function poll() {
    try {
      const r = await fetch('/status', { cache: 'no-store' });
      if (!r.ok) throw new Error('HTTP ' + r.status);
      render(await r.json());
    } catch (e) {
      document.body.dataset.state = 'error';
      document.getElementById('summary').innerHTML = '<span class="bad">cannot reach the node: ' + esc(e.message) + '</span>';
    } finally {
      setTimeout(poll, 1000);
    }
  }
  poll();
})();
