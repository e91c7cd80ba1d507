/* SPDX-License-Identifier: MIT */
/*
 * flamegraph.c - call-path tree, folded output and the SVG flame graph; see flamegraph.h.
 *
 * Names are interned once; a child is found by hashing (parent, interned name),
 * so adding a known path costs one hash lookup per frame and no allocation.
 * Nodes come from chunks, never freed one by one.  The SVG follows the usual
 * flame graph layout: one row per depth, the root ("all") at the bottom,
 * siblings in name order, width proportional to the inclusive weight.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/u64map.h"

#define CHUNK_NODES 1024
#define NAME_ARENA 65536

struct node_chunk {
	struct node_chunk *next;
	size_t used;
	struct pp_flame_node v[CHUNK_NODES];
};

struct name_ent {
	struct name_ent *next;
	uint64_t hash;
	char s[];
};

struct name_arena {
	struct name_arena *next;
	size_t used, size;
	char *data;
};

struct pp_flame {
	struct pp_flame_node root;
	struct pp_u64map children;	/* mix(parent, name) -> node chain */
	struct pp_u64map names;		/* hash(name) -> struct name_ent chain */
	struct node_chunk *chunks;
	struct name_arena *arena;
	size_t nr_nodes;
	uint64_t serial;		/* pp_flame_serial() */
	bool sorted;
};

/* A tree's serial: new at each creation and reset, never one of another tree's. */
static uint64_t next_serial(void)
{
	static uint64_t last;

	return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t mix(const void *a, const void *b)
{
	uint64_t x = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ull;

	return x ^ ((uint64_t)(uintptr_t)b + 0x632be59bd9b4e019ull + (x << 6) + (x >> 2));
}

struct pp_flame *pp_flame_new(void)
{
	struct pp_flame *fg = pp_xcalloc(1, sizeof(*fg));

	fg->root.name = "";
	fg->serial = next_serial();
	return fg;
}

static void flame_release(struct pp_flame *fg)
{
	while (fg->chunks) {
		struct node_chunk *c = fg->chunks;
		fg->chunks = c->next;
		free(c);
	}
	while (fg->arena) {
		struct name_arena *a = fg->arena;
		fg->arena = a->next;
		free(a->data);
		free(a);
	}
	pp_u64map_release(&fg->children);
	pp_u64map_release(&fg->names);
	memset(fg, 0, sizeof(*fg));
	fg->root.name = "";
	fg->serial = next_serial();
}

void pp_flame_free(struct pp_flame *fg)
{
	if (!fg)
		return;
	flame_release(fg);
	free(fg);
}

void pp_flame_reset(struct pp_flame *fg)
{
	flame_release(fg);
}

struct pp_flame_node *pp_flame_root(struct pp_flame *fg)
{
	return &fg->root;
}

size_t pp_flame_nr_nodes(const struct pp_flame *fg)
{
	return fg->nr_nodes;
}

static void *arena_alloc(struct pp_flame *fg, size_t sz)
{
	struct name_arena *a = fg->arena;

	sz = (sz + 7) & ~(size_t)7;
	if (!a || a->used + sz > a->size) {
		a = pp_xcalloc(1, sizeof(*a));
		a->size = sz > NAME_ARENA ? sz : NAME_ARENA;
		a->data = pp_xmalloc(a->size);
		a->next = fg->arena;
		fg->arena = a;
	}
	void *p = a->data + a->used;
	a->used += sz;
	return p;
}

static const char *intern(struct pp_flame *fg, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len);
	void **slot = pp_u64map_slot(&fg->names, h);
	struct name_ent *e;

	for (e = *slot; e; e = e->next)
		if (e->hash == h && !strncmp(e->s, s, len) && !e->s[len])
			return e->s;
	e = arena_alloc(fg, sizeof(*e) + len + 1);
	e->hash = h;
	memcpy(e->s, s, len);
	e->s[len] = '\0';
	e->next = *slot;
	*slot = e;
	return e->s;
}

static struct pp_flame_node *node_alloc(struct pp_flame *fg)
{
	struct node_chunk *c = fg->chunks;

	if (!c || c->used == CHUNK_NODES) {
		c = pp_xcalloc(1, sizeof(*c));
		c->next = fg->chunks;
		fg->chunks = c;
	}
	fg->nr_nodes++;
	return &c->v[c->used++];
}

uint64_t pp_flame_serial(const struct pp_flame *fg)
{
	return fg->serial;
}

const char *pp_flame_intern(struct pp_flame *fg, const char *name, size_t len)
{
	return intern(fg, name, len);
}

struct pp_flame_node *pp_flame_child(struct pp_flame *fg, struct pp_flame_node *parent,
				     const char *name, size_t len)
{
	return pp_flame_child_interned(fg, parent, intern(fg, name, len));
}

struct pp_flame_node *pp_flame_child_interned(struct pp_flame *fg, struct pp_flame_node *parent,
					      const char *in)
{
	void **slot = pp_u64map_slot(&fg->children, mix(parent, in));
	struct pp_flame_node *n;

	for (n = *slot; n; n = n->hnext)
		if (n->parent == parent && n->name == in)
			return n;
	n = node_alloc(fg);
	n->name = in;
	n->parent = parent;
	n->depth = parent->depth + 1;
	n->next = parent->child;
	parent->child = n;
	n->hnext = *slot;
	*slot = n;
	fg->sorted = false;
	return n;
}

struct pp_flame_node *pp_flame_path(struct pp_flame *fg, const char *folded)
{
	struct pp_flame_node *n = &fg->root;
	const char *p = folded;

	while (*p) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len)
			n = pp_flame_child(fg, n, p, len);
		p += len;
		if (*p == ';')
			p++;
	}
	return n;
}

int pp_flame_add_folded_line(struct pp_flame *fg, const char *line)
{
	size_t len = strlen(line);
	const char *sp;
	char *path, *end;
	uint64_t count;

	while (len && isspace((unsigned char)line[len - 1]))
		len--;
	for (sp = line + len; sp > line && sp[-1] != ' '; sp--)
		;
	if (sp == line || sp == line + len)
		return PP_ESYNTAX;
	count = strtoull(sp, &end, 10);
	if (end != line + len)
		return PP_ESYNTAX;
	path = pp_xstrndup(line, (size_t)(sp - 1 - line));
	pp_flame_add(pp_flame_path(fg, path), count);
	free(path);
	return 0;
}

void pp_flame_node_path(const struct pp_flame_node *n, struct pp_buf *out)
{
	const struct pp_flame_node *v[512];
	uint32_t nr = 0;

	/* deeper than 512 frames: keep the innermost ones */
	for (; n && n->parent && nr < PP_ARRAY_SIZE(v); n = n->parent)
		v[nr++] = n;
	while (nr--) {
		pp_buf_adds(out, v[nr]->name);
		if (nr)
			pp_buf_addch(out, ';');
	}
}

static int cmp_node_name(const void *a, const void *b)
{
	const struct pp_flame_node *x = *(struct pp_flame_node *const *)a;
	const struct pp_flame_node *y = *(struct pp_flame_node *const *)b;

	return strcmp(x->name, y->name);
}

/* Sort every sibling list by name and compute totals, iteratively (deep stacks). */
static void prepare(struct pp_flame *fg)
{
	struct pp_flame_node **stack = NULL, **tmp = NULL;
	size_t nr = 0, cap = 0, tmpcap = 0;

	fg->root.total = 0;
	/* post-order via an explicit stack: push children, sum on the way back up */
	cap = 64;
	stack = pp_xmalloc(cap * sizeof(*stack));
	stack[nr++] = &fg->root;
	while (nr) {
		struct pp_flame_node *n = stack[--nr];
		size_t k = 0;

		if (!fg->sorted) {
			for (struct pp_flame_node *c = n->child; c; c = c->next) {
				if (k == tmpcap) {
					tmpcap = tmpcap ? tmpcap * 2 : 64;
					tmp = pp_xrealloc(tmp, tmpcap * sizeof(*tmp));
				}
				tmp[k++] = c;
			}
			if (k > 1) {
				qsort(tmp, k, sizeof(*tmp), cmp_node_name);
				n->child = tmp[0];
				for (size_t i = 0; i + 1 < k; i++)
					tmp[i]->next = tmp[i + 1];
				tmp[k - 1]->next = NULL;
			}
		}
		n->total = n->self;
		for (struct pp_flame_node *c = n->child; c; c = c->next) {
			if (nr == cap) {
				cap *= 2;
				stack = pp_xrealloc(stack, cap * sizeof(*stack));
			}
			stack[nr++] = c;
		}
	}
	/* totals: every node was reset to its self above; add upwards, deepest first */
	struct pp_flame_node **order = pp_xmalloc((fg->nr_nodes + 1) * sizeof(*order));
	size_t no = 0;
	order[no++] = &fg->root;
	for (size_t i = 0; i < no; i++)
		for (struct pp_flame_node *c = order[i]->child; c; c = c->next)
			order[no++] = c;
	for (size_t i = no; i-- > 1;)
		order[i]->parent->total += order[i]->total;
	free(order);
	free(stack);
	free(tmp);
	fg->sorted = true;
}

uint64_t pp_flame_sum(struct pp_flame *fg)
{
	prepare(fg);
	return fg->root.total;
}

/* Pre-order walk, children in (sorted) list order, without recursion. */
static int walk(struct pp_flame_node *root, int (*fn)(struct pp_flame_node *n, void *arg),
		void *arg)
{
	struct pp_flame_node *n = root->child;
	int rc;

	while (n) {
		if ((rc = fn(n, arg)))
			return rc;
		if (n->child) {
			n = n->child;
			continue;
		}
		while (n && !n->next && n != root)
			n = n->parent;
		if (!n || n == root)
			break;
		n = n->next;
	}
	return 0;
}

int pp_flame_walk(struct pp_flame *fg, int (*fn)(struct pp_flame_node *n, void *arg), void *arg)
{
	prepare(fg);
	return walk(&fg->root, fn, arg);
}

struct folded_ctx {
	FILE *fp;
	const char *prefix;
	const char **path;
	size_t cap;
};

static int folded_node(struct pp_flame_node *n, void *arg)
{
	struct folded_ctx *c = arg;

	if (n->depth > c->cap) {
		c->cap = n->depth * 2;
		c->path = pp_xrealloc(c->path, c->cap * sizeof(*c->path));
	}
	c->path[n->depth - 1] = n->name;
	if (!n->self)
		return 0;
	if (c->prefix)
		fputs(c->prefix, c->fp);
	for (uint32_t i = 0; i < n->depth; i++) {
		if (i)
			fputc(';', c->fp);
		fputs(c->path[i], c->fp);
	}
	fprintf(c->fp, " %llu\n", (unsigned long long)n->self);
	return 0;
}

void pp_flame_write_folded(struct pp_flame *fg, FILE *fp, const char *prefix)
{
	struct folded_ctx c = { fp, prefix, NULL, 0 };

	pp_flame_walk(fg, folded_node, &c);
	free(c.path);
}

/* --- SVG ------------------------------------------------------------------ */

#define FRAME_H 16
#define PAD_X 10
#define PAD_TOP 50
#define PAD_BOTTOM 34
#define MIN_WIDTH 0.1

static void xml_escape(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, fp);
		}
	}
}

static void weight_str(char *buf, size_t sz, uint64_t w, const char *unit)
{
	if (!strcmp(unit, "ns"))
		snprintf(buf, sz, "%.3f ms", w / 1e6);
	else if (!strcmp(unit, "us"))
		snprintf(buf, sz, "%.3f ms", w / 1e3);
	else
		snprintf(buf, sz, "%llu %s", (unsigned long long)w, unit);
}

/* A warm color from the name, the same for a name in every graph. */
static void frame_color(const char *name, int rgb[3])
{
	uint64_t h = hash_bytes(name, strlen(name));
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;

	rgb[0] = 205 + (int)(50 * v3);
	rgb[1] = (int)(230 * v1);
	rgb[2] = (int)(55 * v2);
}

struct svg_ctx {
	FILE *fp;
	double scale;			/* pixels per weight unit */
	double *x;			/* left edge per depth, for the next child */
	uint32_t max_depth;
	int height;
	uint64_t total;
	const char *unit;
};

static int depth_node(struct pp_flame_node *n, void *arg)
{
	struct svg_ctx *c = arg;

	if (n->total * c->scale >= MIN_WIDTH && n->depth > c->max_depth)
		c->max_depth = n->depth;
	return 0;
}

static void svg_frame(struct svg_ctx *c, const struct pp_flame_node *n, const char *name, double x)
{
	double w = n->total * c->scale;
	double y = c->height - PAD_BOTTOM - (n->depth + 1) * FRAME_H;
	char ws[64];
	int rgb[3];
	int chars = (int)((w - 6) / 7);
	size_t len = strlen(name);

	weight_str(ws, sizeof(ws), n->total, c->unit);
	frame_color(name, rgb);
	fprintf(c->fp, "<g class=\"f\" data-d=\"%u\"><title>", n->depth);
	xml_escape(c->fp, name);
	fprintf(c->fp, " (%s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		       "height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" "
		       "y=\"%.1f\">",
		ws, c->total ? 100.0 * n->total / c->total : 0.0, PAD_X + x, y, w, FRAME_H - 1,
		rgb[0], rgb[1], rgb[2], PAD_X + x + 3, y + 10.5);
	if (chars >= 3) {
		if ((size_t)chars >= len) {
			xml_escape(c->fp, name);
		} else {
			char *t = pp_xstrndup(name, (size_t)chars - 2);
			xml_escape(c->fp, t);
			fputs("..", c->fp);
			free(t);
		}
	}
	fputs("</text></g>\n", c->fp);
}

static int svg_node(struct pp_flame_node *n, void *arg)
{
	struct svg_ctx *c = arg;
	double x = c->x[n->depth - 1];

	/* the next child of the parent starts where this one ends */
	c->x[n->depth - 1] = x + n->total * c->scale;
	if (n->child)
		c->x[n->depth] = x;
	if (n->total * c->scale < MIN_WIDTH || n->depth > c->max_depth)
		return 0;
	svg_frame(c, n, n->name, x);
	return 0;
}

/* Kept small on purpose: hover details, click to zoom, reset. */
static const char svg_script[] =
	"var W, D, frames = [], zoomed = null;\n"
	"function init(evt) {\n"
	"  var svg = document.documentElement;\n"
	"  W = parseFloat(svg.getAttribute('data-w')); D = document.getElementById('details');\n"
	"  var gs = document.getElementsByClassName('f');\n"
	"  for (var i = 0; i < gs.length; i++) {\n"
	"    var g = gs[i], r = g.getElementsByTagName('rect')[0];\n"
	"    frames.push({ g: g, r: r, t: g.getElementsByTagName('text')[0],\n"
	"      name: g.getElementsByTagName('title')[0].textContent.replace(/ \\([^(]*\\)$/, ''),\n"
	"      x: parseFloat(r.getAttribute('x')), w: parseFloat(r.getAttribute('width')),\n"
	"      d: parseInt(g.getAttribute('data-d')) });\n"
	"    g.onmouseover = (function (g) { return function () {\n"
	"      D.textContent = g.getElementsByTagName('title')[0].textContent; }; })(g);\n"
	"    g.onmouseout = function () { D.textContent = ' '; };\n"
	"    g.onclick = (function (f) { return function () { zoom(f); }; })(frames[i]);\n"
	"  }\n"
	"}\n"
	"function label(f, w) {\n"
	"  var n = Math.floor((w - 6) / 7);\n"
	"  f.t.textContent = n < 3 ? '' :\n"
	"    (f.name.length <= n ? f.name : f.name.substring(0, n - 2) + '..');\n"
	"}\n"
	"function place(f, x, w, show, faded) {\n"
	"  f.g.style.display = show ? '' : 'none';\n"
	"  if (!show) return;\n"
	"  f.r.setAttribute('x', x.toFixed(2)); f.r.setAttribute('width', w.toFixed(2));\n"
	"  f.t.setAttribute('x', (x + 3).toFixed(2)); f.g.style.opacity = faded ? 0.5 : 1;\n"
	"  label(f, w);\n"
	"}\n"
	"function zoom(z) {\n"
	"  if (z.d == 0) { unzoom(); return; }\n"
	"  var e = 0.0001, s = W / z.w;\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var f = frames[i];\n"
	"    if (f.d < z.d)\n"
	"      place(f, 10, W, f.x <= z.x + e && f.x + f.w >= z.x + z.w - e, true);\n"
	"    else\n"
	"      place(f, 10 + (f.x - z.x) * s, f.w * s,\n"
	"            f.x >= z.x - e && f.x + f.w <= z.x + z.w + e, false);\n"
	"  }\n"
	"  zoomed = z; document.getElementById('unzoom').style.opacity = 1;\n"
	"}\n"
	"function unzoom() {\n"
	"  for (var i = 0; i < frames.length; i++)\n"
	"    place(frames[i], frames[i].x, frames[i].w, true, false);\n"
	"  zoomed = null; document.getElementById('unzoom').style.opacity = 0;\n"
	"}\n";

void pp_flame_write_svg(struct pp_flame *fg, FILE *fp, const struct pp_flame_svg_opts *o)
{
	struct pp_flame_svg_opts def = { 0 };
	const char *unit;
	int width;
	struct svg_ctx c = { .fp = fp };

	if (!o)
		o = &def;
	unit = o->unit ? o->unit : "samples";
	width = o->width > 2 * PAD_X + 100 ? o->width : 1200;
	c.total = pp_flame_sum(fg);
	c.unit = unit;
	c.scale = c.total ? (double)(width - 2 * PAD_X) / (double)c.total : 0;
	walk(&fg->root, depth_node, &c);
	c.height = PAD_TOP + PAD_BOTTOM + (int)(c.max_depth + 1) * FRAME_H;
	c.x = pp_xcalloc(c.max_depth + 2, sizeof(*c.x));

	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		    "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		    "onload=\"init(evt)\" data-w=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		width, c.height, width, c.height, width - 2 * PAD_X);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	      ".f rect { stroke: none; }\n"
	      ".f:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
	      ".f text { pointer-events: none; font-size: 11px; }\n"
	      "#title { font-size: 17px; text-anchor: middle; }\n"
	      "#unzoom { cursor: pointer; opacity: 0; }\n"
	      "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n",
	      fp);
	fputs(svg_script, fp);
	fputs("]]></script>\n", fp);
	fprintf(fp,
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,248)\"/>\n",
		width, c.height);
	fprintf(fp, "<text id=\"title\" x=\"%d\" y=\"24\">", width / 2);
	xml_escape(fp, o->title ? o->title : "Flame Graph");
	fputs("</text>\n", fp);
	if (o->subtitle) {
		fprintf(fp, "<text x=\"%d\" y=\"42\" "
			    "style=\"text-anchor: middle; fill: rgb(100,100,100)\">", width / 2);
		xml_escape(fp, o->subtitle);
		fputs("</text>\n", fp);
	}
	fprintf(fp,
		"<text id=\"unzoom\" x=\"%d\" y=\"24\" onclick=\"unzoom()\">Reset Zoom</text>\n",
		PAD_X);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD_X, c.height - 12);
	if (!c.total) {
		fprintf(fp, "<text x=\"%d\" y=\"%d\" style=\"text-anchor: middle\">no %s</text>\n",
			width / 2, c.height / 2, unit);
	} else {
		svg_frame(&c, &fg->root, "all", 0);
		walk(&fg->root, svg_node, &c);
	}
	fputs("</svg>\n", fp);
	free(c.x);
}

bool pp_flame_path_is_svg(const char *path)
{
	size_t len = path ? strlen(path) : 0;

	return len >= 4 && !strcasecmp(path + len - 4, ".svg");
}

int pp_flame_write_file(struct pp_flame *fg, const char *path, const struct pp_flame_svg_opts *o,
			char *err, size_t errsz)
{
	bool to_stdout = !strcmp(path, "-") || !*path;
	FILE *fp = to_stdout ? stdout : fopen(path, "w");
	int rc = 0;

	if (!fp) {
		rc = -errno;
		snprintf(err, errsz, "cannot write flame graph '%s': %s", path, strerror(errno));
		return rc;
	}
	if (pp_flame_path_is_svg(path))
		pp_flame_write_svg(fg, fp, o);
	else
		pp_flame_write_folded(fg, fp, NULL);
	if (to_stdout) {
		fflush(fp);
	} else if (fclose(fp)) {
		rc = -errno;
		snprintf(err, errsz, "cannot write flame graph '%s': %s", path, strerror(errno));
	}
	return rc;
}
