// A small line chart on a canvas: several series over time, vertical markers for events. No dependencies.
// new LineChart(canvas).draw({series: [{name, color, points: [[tMillis, valueOrNull], ...]}], markers: [tMillis], unit})
(function (global) {
  'use strict';
  const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f'];

  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }

  function fmt(v) {
    const a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toFixed(1) + 'G';
    if (a >= 1e6) return (v / 1e6).toFixed(1) + 'M';
    if (a >= 1e4) return (v / 1e3).toFixed(0) + 'k';
    if (a >= 100) return v.toFixed(0);
    if (a >= 1) return v.toFixed(1);
    return v.toFixed(2);
  }

  class LineChart {
    constructor(canvas) {
      this.canvas = canvas;
    }

    /** Draws; returns the number of non-null points drawn. */
    draw(spec) {
      const c = this.canvas;
      const dpr = global.devicePixelRatio || 1;
      const w = c.clientWidth || 460, h = c.clientHeight || 200;
      c.width = w * dpr; c.height = h * dpr;
      const g = c.getContext('2d');
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, w, h);
      const L = 52, R = 8, T = 8, B = 34;
      let t0 = Infinity, t1 = -Infinity, vmax = 0, n = 0;
      for (const s of spec.series) for (const [t, v] of s.points) {
        t0 = Math.min(t0, t); t1 = Math.max(t1, t);
        if (v !== null && v !== undefined && isFinite(v)) { vmax = Math.max(vmax, v); n++; }
      }
      g.font = '11px system-ui, sans-serif';
      g.fillStyle = '#666';
      if (!isFinite(t0)) { g.fillText('waiting for data…', L + 10, T + 20); return 0; }
      if (t1 === t0) t1 = t0 + 1000;
      const ymax = spec.max !== undefined ? Math.max(spec.max, vmax) : niceMax(vmax * 1.1);
      const x = t => L + (t - t0) / (t1 - t0) * (w - L - R);
      const y = v => T + (1 - v / ymax) * (h - T - B);
      // grid and axes
      g.strokeStyle = '#eee'; g.lineWidth = 1;
      for (let i = 0; i <= 4; i++) {
        const v = ymax * i / 4, yy = y(v);
        g.beginPath(); g.moveTo(L, yy); g.lineTo(w - R, yy); g.stroke();
        g.fillText(fmt(v) + (spec.unit || ''), 2, yy + 4);
      }
      const span = (t1 - t0) / 1000;
      for (let i = 0; i <= 4; i++) {
        const t = t0 + (t1 - t0) * i / 4;
        g.fillText('-' + Math.round(span * (1 - i / 4)) + 's', x(t) - 10, h - B + 14);
      }
      // event markers
      g.save(); g.setLineDash([4, 3]); g.strokeStyle = '#aa00aa88';
      for (const m of spec.markers || []) {
        if (m < t0 || m > t1) continue;
        g.beginPath(); g.moveTo(x(m), T); g.lineTo(x(m), h - B); g.stroke();
      }
      g.restore();
      // series
      let lx = L;
      spec.series.forEach((s, i) => {
        const color = s.color || PALETTE[i % PALETTE.length];
        g.strokeStyle = color; g.lineWidth = 1.6; g.beginPath();
        let pen = false;
        for (const [t, v] of s.points) {
          if (v === null || v === undefined || !isFinite(v)) { pen = false; continue; }
          if (pen) g.lineTo(x(t), y(v)); else { g.moveTo(x(t), y(v)); pen = true; }
        }
        g.stroke();
        g.fillStyle = color; g.fillRect(lx, h - 12, 10, 3);
        g.fillStyle = '#444'; g.fillText(s.name, lx + 13, h - 7);
        lx += 20 + g.measureText(s.name).width;
      });
      return n;
    }
  }

  global.LineChart = LineChart;
  global.LineChart.PALETTE = PALETTE;
})(window);
