// SPDX-License-Identifier: MIT
// flamegraph-js.js - run the script of a pp SVG flame graph against a tiny DOM (node).
//
// usage: node flamegraph-js.js FILE.svg FRAME
// Hovers FRAME (the first frame of that name), checks the details line, clicks it
// and checks that it now spans the full width, that its ancestors span it too
// (faded), that frames outside it are hidden and its children keep their share;
// then resets the zoom.  Exit 0 when all holds, 1 (with a message) otherwise.
'use strict';
const fs = require('fs');
const [file, frameName] = process.argv.slice(2);
const svg = fs.readFileSync(file, 'utf8');
const fail = (m) => { console.log('FAIL: ' + m); process.exit(1); };

function el(tag, attrs, text) {
	return {
		tag, attrs: Object.assign({}, attrs), textContent: text || '', style: {}, kids: [],
		getAttribute(k) { return this.attrs[k]; },
		setAttribute(k, v) { this.attrs[k] = String(v); },
		getElementsByTagName(t) { return this.kids.filter((k) => k.tag === t); },
	};
}
const unesc = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
	.replace(/&apos;/g, "'").replace(/&amp;/g, '&');
const attrsOf = (s) => { const a = {}; s.replace(/([\w-]+)="([^"]*)"/g, (_, k, v) => { a[k] = v; }); return a; };

const groups = [];
const re = /<g class="f" data-d="(\d+)"><title>([^<]*)<\/title><rect ([^>]*)\/><text ([^>]*)>([^<]*)<\/text><\/g>/g;
let m;
while ((m = re.exec(svg))) {
	const g = el('g', { 'data-d': m[1], class: 'f' });
	g.kids.push(el('title', {}, unesc(m[2])), el('rect', attrsOf(m[3])), el('text', attrsOf(m[4]), unesc(m[5])));
	groups.push(g);
}
if (!groups.length) fail('no frames in ' + file);
const root = attrsOf(svg.match(/<svg ([^>]*)>/)[1]);
const named = { details: el('text', {}, ' '), unzoom: el('text', {}) };
global.document = {
	documentElement: { getAttribute: (k) => root[k] },
	getElementById: (id) => named[id],
	getElementsByClassName: () => groups,
};
const script = svg.match(/<!\[CDATA\[([\s\S]*?)\]\]>/)[1];
eval(script + '\nglobal.__pp = { init, zoom, unzoom, frames: () => frames };');
__pp.init();

const frames = __pp.frames();
const W = parseFloat(root['data-w']);
const z = frames.find((f) => f.name === frameName);
if (!z) fail('no frame ' + frameName);
z.g.onmouseover();
if (!named.details.textContent.startsWith(frameName + ' (')) fail('hover shows "' + named.details.textContent + '"');
z.g.onclick();
const x = (f) => parseFloat(f.r.getAttribute('x')), w = (f) => parseFloat(f.r.getAttribute('width'));
const near = (a, b) => Math.abs(a - b) < 0.02 * W;
if (!near(w(z), W) || !near(x(z), 10)) fail('zoomed frame spans ' + x(z) + '+' + w(z) + ', not the width ' + W);
for (const f of frames) {
	const inside = f.x >= z.x - 1e-4 && f.x + f.w <= z.x + z.w + 1e-4;
	const above = f.d < z.d && f.x <= z.x + 1e-4 && f.x + f.w >= z.x + z.w - 1e-4;
	const shown = f.g.style.display !== 'none';
	if (f.d >= z.d && inside) {
		if (!shown || !near(w(f), f.w * W / z.w)) fail(f.name + ' inside the zoom has width ' + w(f));
	} else if (above) {
		if (!shown || !near(w(f), W) || f.g.style.opacity !== 0.5) fail('ancestor ' + f.name + ' not full and faded');
	} else if (shown) {
		fail(f.name + ' outside the zoom is still shown');
	}
}
if (z.t.textContent !== frameName) fail('zoomed label is "' + z.t.textContent + '"');
__pp.unzoom();
for (const f of frames)
	if (f.g.style.display === 'none' || !near(w(f), f.w)) fail('reset left ' + f.name + ' changed');
console.log('ok: ' + frames.length + ' frames, zoom on ' + frameName);
