/* pp-analyze report: the page's script (analyze/report/page.c embeds it).
 * Sortable tables, flame graphs (zoom, search, reset) and latency heatmaps, drawn from
 * the JSON block #pp-data.  Text from the capture only ever enters the page through
 * textContent and title: never as markup.  window.ppReport exposes the graphs' state. */
(function () {
	'use strict';
	var R = window.ppReport = { flames: [], heatmaps: [], sorts: 0 };
	var data = { flames: [], heatmaps: [] };
	var el = document.getElementById('pp-data');
	if (el) {
		data = JSON.parse(el.textContent);
	}

	function fmtNs(ns) {
		var u = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']];
		for (var i = 0; i < u.length; i++) {
			if (ns >= u[i][0] || i === u.length - 1) {
				var v = ns / u[i][0];
				return (v >= 100 || v === Math.round(v) ? v.toFixed(0) : v.toPrecision(3)) + ' ' + u[i][1];
			}
		}
		return String(ns);
	}

	function pct(a, b) {
		return b ? (100 * a / b).toFixed(2) + '%' : '0%';
	}

	/* --- tables: a click on a header sorts by that column, again reverses ------------ */
	var NUM = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?%?$/i;

	function sortTable(th) {
		var table = th.closest('table');
		var body = table.tBodies[0];
		var col = th.cellIndex;
		var rows = Array.prototype.slice.call(body.rows);
		var numeric = rows.length > 0;
		var keyed = rows.map(function (r, k) {
			var t = r.cells[col] ? r.cells[col].textContent.trim() : '';
			if (t !== '' && !NUM.test(t)) {
				numeric = false;
			}
			return { r: r, k: k, t: t, v: NUM.test(t) ? parseFloat(t) : -Infinity };
		});
		var dir = th.dataset.sort === 'desc' ? 'asc' : th.dataset.sort === 'asc' ? 'desc' :
			(numeric ? 'desc' : 'asc');
		var sign = dir === 'asc' ? 1 : -1;
		keyed.sort(function (a, b) {
			var c = numeric ? (a.v < b.v ? -1 : a.v > b.v ? 1 : 0) : a.t.localeCompare(b.t);
			return c ? sign * c : a.k - b.k;
		});
		keyed.forEach(function (e) { body.appendChild(e.r); });
		Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
			delete h.dataset.sort;
		});
		th.dataset.sort = dir;
		table.dataset.sortCol = String(col);
		table.dataset.sortDir = dir;
		R.sorts++;
	}

	Array.prototype.forEach.call(document.querySelectorAll('table.sortable thead th'), function (th) {
		th.title = 'sort by this column';
		th.addEventListener('click', function () { sortTable(th); });
	});

	/* --- flame graphs ------------------------------------------------------------------ */
	var ROW = 18;

	function hue(name) {
		var h = 0;
		for (var i = 0; i < name.length; i++) {
			h = (h * 31 + name.charCodeAt(i)) >>> 0;
		}
		return 'hsl(' + (8 + h % 48) + ',' + (70 + (h >>> 8) % 20) + '%,' + (56 + (h >>> 16) % 12) + '%)';
	}

	function Flame(root, d) {
		var n = d.nodes, N = n.length / 3, last = [], i;
		this.root = root;
		this.graph = root.querySelector('.fgraph');
		this.info = root.querySelector('.finfo');
		this.status = root.querySelector('.fstatus');
		this.unit = d.unit;
		this.left = d.left || 0;
		this.name = new Array(N);
		this.tot = new Array(N);
		this.dep = new Array(N);
		this.par = new Array(N);
		this.x = new Array(N);
		this.kids = new Array(N);
		this.hit = null;
		this.zoom = 0;
		for (i = 0; i < N; i++) {
			var dep = n[3 * i];
			this.dep[i] = dep;
			this.name[i] = n[3 * i + 1] < 0 ? 'all' : d.names[n[3 * i + 1]];
			this.tot[i] = n[3 * i + 2];
			this.kids[i] = [];
			if (i === 0) {
				this.par[i] = -1;
				this.x[i] = 0;
			} else {
				var p = last[dep - 1], k = this.kids[p];
				this.par[i] = p;
				this.x[i] = k.length ? this.x[k[k.length - 1]] + this.tot[k[k.length - 1]] : this.x[p];
				k.push(i);
			}
			last[dep] = i;
		}
		var self = this;
		this.graph.addEventListener('click', function (e) {
			var f = e.target.closest('.fr');
			if (f) {
				self.zoomTo(+f.dataset.i);
			}
		});
		this.graph.addEventListener('mouseover', function (e) {
			var f = e.target.closest('.fr');
			if (f) {
				self.tell(+f.dataset.i);
			}
		});
		root.querySelector('.freset').addEventListener('click', function () { self.zoomTo(0); });
		var input = root.querySelector('.fsearch');
		input.addEventListener('input', function () { self.search(input.value); });
		this.render();
	}

	Flame.prototype.tell = function (i) {
		var t = this.tot[i];
		this.info.textContent = this.name[i] + ' \u2014 ' + t + ' ' + this.unit + ', ' +
			pct(t, this.tot[0]) + ' of all' + (this.zoom ? ', ' + pct(t, this.tot[this.zoom]) + ' of the zoomed frame' : '');
	};

	Flame.prototype.frame = function (i, left, width, top, anc) {
		var f = document.createElement('div');
		f.className = 'fr' + (anc ? ' anc' : '') + (this.hit && this.hit[i] ? ' hit' : '');
		f.style.left = left.toFixed(1) + 'px';
		f.style.width = Math.max(width, 1).toFixed(1) + 'px';
		f.style.top = top + 'px';
		f.style.background = hue(this.name[i]);
		if (width > 24) {
			f.textContent = this.name[i];
		}
		f.title = this.name[i] + ' (' + this.tot[i] + ' ' + this.unit + ', ' + pct(this.tot[i], this.tot[0]) + ')';
		f.dataset.i = String(i);
		return f;
	};

	Flame.prototype.render = function () {
		var z = this.zoom, W = this.graph.clientWidth || 1000, scale = W / this.tot[z];
		var list = [], maxd = this.dep[z], a, i, stack = [z];
		for (a = this.par[z]; a >= 0; a = this.par[a]) {
			list.push([a, 0, W, true]);
		}
		while (stack.length) {
			i = stack.pop();
			var w = this.tot[i] * scale;
			if (w < 0.5) {
				continue;
			}
			list.push([i, (this.x[i] - this.x[z]) * scale, w, false]);
			if (this.dep[i] > maxd) {
				maxd = this.dep[i];
			}
			for (var k = this.kids[i].length - 1; k >= 0; k--) {
				stack.push(this.kids[i][k]);
			}
		}
		var frag = document.createDocumentFragment();
		for (var j = 0; j < list.length; j++) {
			var e = list[j];
			frag.appendChild(this.frame(e[0], e[1], e[2], (maxd - this.dep[e[0]]) * ROW, e[3]));
		}
		this.graph.textContent = '';
		this.graph.style.height = ((maxd + 1) * ROW) + 'px';
		this.graph.appendChild(frag);
		this.root.dataset.zoom = z ? this.name[z] : '';
		this.root.dataset.frames = String(list.length);
	};

	Flame.prototype.zoomTo = function (i) {
		this.zoom = i >= 0 && i < this.tot.length ? i : 0;
		this.render();
		this.tell(this.zoom);
	};

	Flame.prototype.search = function (text) {
		var re = null, N = this.tot.length, i, count = 0, sum = 0;
		if (text) {
			try {
				re = new RegExp(text);
			} catch (err) {
				re = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
			}
		}
		this.hit = re ? new Array(N) : null;
		if (re) {
			var under = new Array(N);
			for (i = 1; i < N; i++) {
				var p = this.par[i];
				under[i] = under[p] || this.hit[p];
				this.hit[i] = re.test(this.name[i]);
				if (this.hit[i]) {
					count++;
					if (!under[i]) {
						sum += this.tot[i];
					}
				}
			}
		}
		this.matched = sum;
		this.root.dataset.matches = String(count);
		this.status.textContent = re ? count + ' frames match, ' + pct(sum, this.tot[0]) + ' of all' +
			(this.left ? ' (the frames drawn: ' + this.left + ' small ones were left out)' : '') : '';
		this.render();
	};

	data.flames.forEach(function (d, k) {
		var root = document.querySelector('.flame[data-flame="' + k + '"]');
		if (root) {
			R.flames.push(new Flame(root, d));
		}
	});

	/* --- latency heatmaps ------------------------------------------------------------ */
	function Heatmap(root, d) {
		var canvas = root.querySelector('canvas'), info = root.querySelector('.hinfo');
		var cols = d.cols, rows = d.rows, LM = 62, BM = 20, ch = 14;
		var avail = Math.min(root.clientWidth || 1000, 1300) - LM - 4;
		var cw = Math.max(3, Math.floor(avail / cols));
		var max = 0, i, r, c;
		for (i = 0; i < d.counts.length; i++) {
			max = Math.max(max, d.counts[i]);
		}
		canvas.width = LM + cols * cw + 2;
		canvas.height = rows * ch + BM;
		var g = canvas.getContext('2d');
		g.fillStyle = '#ffffff';
		g.fillRect(0, 0, canvas.width, canvas.height);
		for (r = 0; r < rows; r++) {
			for (c = 0; c < cols; c++) {
				var v = d.counts[r * cols + c];
				if (!v) {
					continue;
				}
				var f = Math.log(1 + v) / Math.log(1 + max);
				g.fillStyle = 'rgb(' + Math.round(255 - 75 * f) + ',' + Math.round(230 - 230 * f) + ',' +
					Math.round(150 - 120 * f) + ')';
				g.fillRect(LM + c * cw, (rows - 1 - r) * ch, cw, ch);
			}
		}
		g.fillStyle = '#333';
		g.font = '10px sans-serif';
		g.textBaseline = 'middle';
		for (r = 0; r < rows; r += rows > 24 ? 2 : 1) {
			g.fillText(fmtNs(Math.pow(2, d.r0 + r)), 2, (rows - 1 - r) * ch + ch / 2);
		}
		g.textBaseline = 'top';
		for (i = 0; i <= 4; i++) {
			var label = i ? '+' + fmtNs(d.span * i / 4) : '0';
			var x = LM + cols * cw * i / 4 - (i === 4 ? g.measureText(label).width : i ? g.measureText(label).width / 2 : 0);
			g.fillText(label, x, rows * ch + 4);
		}
		canvas.addEventListener('mousemove', function (e) {
			var b = canvas.getBoundingClientRect();
			var px = (e.clientX - b.left) * canvas.width / b.width, py = (e.clientY - b.top) * canvas.height / b.height;
			var cc = Math.floor((px - LM) / cw), rr = rows - 1 - Math.floor(py / ch);
			if (cc < 0 || cc >= cols || rr < 0 || rr >= rows) {
				info.textContent = '\u00a0';
				return;
			}
			info.textContent = '+' + fmtNs(d.span * cc / cols) + ' .. +' + fmtNs(d.span * (cc + 1) / cols) + ', ' +
				fmtNs(Math.pow(2, d.r0 + rr)) + ' .. ' + fmtNs(Math.pow(2, d.r0 + rr + 1)) + ': ' +
				d.counts[rr * cols + cc] + ' ' + d.what;
		});
		this.max = max;
	}

	data.heatmaps.forEach(function (d, k) {
		var root = document.querySelector('.heatmap[data-heatmap="' + k + '"]');
		if (root) {
			R.heatmaps.push(new Heatmap(root, d));
		}
	});

	var resized = 0;
	window.addEventListener('resize', function () {
		clearTimeout(resized);
		resized = setTimeout(function () {
			R.flames.forEach(function (f) { f.render(); });
		}, 150);
	});
	document.body.dataset.ready = '1';
})();
