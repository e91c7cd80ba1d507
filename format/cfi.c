/* SPDX-License-Identifier: MIT */
/*
 * cfi.c - .eh_frame and .debug_frame to unwind rows (cfi.h).
 *
 * Each section is a list of entries {length, id, body}: CIEs (the common part: alignment
 * factors, the return address column, pointer encodings, initial instructions) and FDEs
 * (a code range, the CIE they use, their instructions).  .eh_frame's CIE id is 0 and an
 * FDE's CIE pointer counts back from itself; .debug_frame's id is all ones and the pointer
 * is a section offset, and its addresses are plain.  For each FDE the CFA program is
 * interpreted (frame_run), a row emitted at every location advance; the rows of all FDEs
 * are then sorted, overlaps cut (.eh_frame wins over .debug_frame, an earlier row over a
 * later one) and adjacent equal rows merged.
 * The only CFA expression understood is the x86-64 lazy PLT's (rsp + 8, + 8 when
 * (rip & 15) >= 11); any other, and any rule for rbp or the return address other than
 * "same", "undefined" or "at CFA + n", makes the row unknown.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/cfi.h"

#include "common/rdbytes.h"

enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };

/* A register's rule, as far as rows can say it. */
enum rule { R_UNSET = 0, R_SAME, R_UNDEF, R_OFFSET, R_OTHER };
enum cfa { C_REG = 0, C_PLT, C_OTHER };

struct frame_state {
	uint8_t cfa_kind;	/* enum cfa */
	uint32_t cfa_reg;
	int64_t cfa_off;
	uint8_t ra, fp;		/* enum rule */
	int64_t ra_off, fp_off;
};

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint32_t ra_reg;
	uint8_t fde_enc;		/* DW_EH_PE_* of FDE addresses */
	bool aug_z;			/* FDEs carry augmentation data */
	uint8_t addr_sz;
	const uint8_t *insn, *insn_end;
};

/* One section being read. */
struct sect {
	const uint8_t *data;
	size_t size;
	uint64_t addr;			/* sh_addr: base of pcrel pointers */
	bool eh;			/* .eh_frame (else .debug_frame) */
};

struct rows {
	struct ppf_unwind_row *v;
	uint8_t *src;			/* 0 .eh_frame, 1 .debug_frame: who wins an overlap */
	size_t nr, cap;
	uint8_t cur_src;
	bool full;
	struct ppf_cfi_stats st;
};

static uint64_t cur_un(struct cur *c, size_t n)
{
	uint64_t v;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	v = pp_rd_le(c->p, (unsigned)n);
	c->p += n;
	return v;
}

static uint64_t cur_uleb(struct cur *c)
{
	return pp_uleb128(&c->p, c->end, &c->bad);
}

static int64_t cur_sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ull << shift;
			return (int64_t)v;
		}
	}
	c->bad = true;
	return 0;
}

/*
 * A pointer of encoding @enc (DW_EH_PE_*) at the cursor, @field_addr the address the
 * section maps it at (pcrel's base).  Indirect, textrel, datarel and funcrel pointers are
 * not for this use: bad.
 */
static uint64_t cur_ptr(struct cur *c, uint8_t enc, uint64_t field_addr, bool apply)
{
	uint64_t v;

	switch (enc & 0x0f) {
	case 0x00: v = cur_un(c, 8); break;
	case 0x01: v = cur_uleb(c); break;
	case 0x02: v = cur_un(c, 2); break;
	case 0x03: v = cur_un(c, 4); break;
	case 0x04: v = cur_un(c, 8); break;
	case 0x09: v = (uint64_t)cur_sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)cur_un(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)cur_un(c, 4); break;
	case 0x0c: v = cur_un(c, 8); break;
	default: c->bad = true; return 0;
	}
	if (!apply)
		return v;
	switch (enc & 0x70) {
	case 0x00: return v;
	case 0x10: return v + field_addr;
	default: c->bad = true; return 0;
	}
}

static int rows_push(struct rows *rs, uint64_t start, uint64_t end, const struct frame_state *s)
{
	struct ppf_unwind_row *r;

	if (start >= end)
		return 0;
	if (rs->nr >= PPF_CFI_MAX_ROWS) {
		rs->full = true;
		return 0;
	}
	if (rs->nr == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 1024;
		struct ppf_unwind_row *v = realloc(rs->v, cap * sizeof(*v));
		uint8_t *src = v ? realloc(rs->src, cap) : NULL;

		if (v)
			rs->v = v;
		if (!src)
			return -ENOMEM;
		rs->src = src;
		rs->cap = cap;
	}
	r = &rs->v[rs->nr];
	rs->src[rs->nr++] = rs->cur_src;
	*r = (struct ppf_unwind_row){ .start = start, .end = end, .ra = PPF_REG_AT_CFA,
				      .cfa_off = 8, .ra_off = -8, .fp_off = -16 };
	/* ra undefined: the outermost frame, nothing else matters */
	if (s->ra == R_UNDEF) {
		r->ra = PPF_REG_UNDEF;
	} else if (s->ra != R_OFFSET || s->ra_off < INT32_MIN || s->ra_off > INT32_MAX ||
		   (s->fp != R_SAME && s->fp != R_UNSET && s->fp != R_OFFSET) ||
		   s->fp_off < INT32_MIN || s->fp_off > INT32_MAX) {
		goto unknown;
	} else {
		r->ra_off = (int32_t)s->ra_off;
		if (s->fp == R_OFFSET) {
			r->fp = PPF_REG_AT_CFA;
			r->fp_off = (int32_t)s->fp_off;
		}
	}
	if (s->cfa_kind == C_PLT) {
		r->cfa = PPF_CFA_PLT;
		return 0;
	}
	if (s->cfa_kind != C_REG || (s->cfa_reg != REG_RSP && s->cfa_reg != REG_RBP) ||
	    s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX)
		goto unknown;
	r->cfa = s->cfa_reg == REG_RSP ? PPF_CFA_SP : PPF_CFA_FP;
	r->cfa_off = (int32_t)s->cfa_off;
	return 0;
unknown:
	*r = (struct ppf_unwind_row){ .start = start, .end = end, .ra = PPF_REG_AT_CFA,
				      .cfa_off = 8, .ra_off = -8, .fp_off = -16 };
	rs->st.nr_unknown++;
	return 0;
}

/* The x86-64 lazy PLT's CFA: DW_OP_breg7 8, breg16 0, lit15, and, lit11, ge, lit3, shl, plus. */
static bool plt_expr(const uint8_t *p, uint64_t len)
{
	static const uint8_t plt[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 };

	return len == sizeof(plt) && !memcmp(p, plt, sizeof(plt));
}

/* Set the rule of register @reg (only rbp and the return address are kept). */
static void set_rule(struct frame_state *s, const struct cie *ci, uint64_t reg, uint8_t rule,
		     int64_t off)
{
	if (reg == REG_RBP) {
		s->fp = rule;
		s->fp_off = off;
	} else if (reg == ci->ra_reg) {
		s->ra = rule;
		s->ra_off = off;
	}
}

static void restore_rule(struct frame_state *s, const struct frame_state *init,
			 const struct cie *ci, uint64_t reg)
{
	if (reg == REG_RBP)
		set_rule(s, ci, reg, init->fp, init->fp_off);
	else if (reg == ci->ra_reg)
		set_rule(s, ci, reg, init->ra, init->ra_off);
}

struct frame_run {
	const struct cie *ci;
	const struct sect *sc;
	struct rows *rs;		/* NULL: the CIE's initial instructions */
	struct frame_state s, init;
	struct frame_state stack[PPF_CFI_MAX_STATE];
	unsigned depth;
	uint64_t loc, end;
};

/* Advance to @to: the rows of [loc, to).  Return 0, 1 when past the end, or -ENOMEM. */
static int advance(struct frame_run *fr, uint64_t delta)
{
	uint64_t to;
	int rc;

	if (!fr->rs)
		return 1;	/* no advance in a CIE */
	if (fr->ci->code_align && delta > (UINT64_MAX - fr->loc) / fr->ci->code_align)
		to = UINT64_MAX;
	else
		to = fr->loc + delta * fr->ci->code_align;
	if (to > fr->end)
		to = fr->end;
	rc = rows_push(fr->rs, fr->loc, to, &fr->s);
	fr->loc = to;
	return rc ? rc : fr->loc >= fr->end;
}

/* One instruction with an extended opcode @op.  Return 0, 1 to stop (bad or unknown), -ENOMEM. */
static int frame_op(struct frame_run *fr, struct cur *c, uint8_t op)
{
	struct frame_state *s = &fr->s;
	const struct cie *ci = fr->ci;
	uint64_t reg, n;

	switch (op) {
	case 0x00: return 0;						/* nop */
	case 0x01:							/* set_loc */
		n = cur_ptr(c, ci->fde_enc, fr->sc->addr + (uint64_t)(c->p - fr->sc->data), fr->sc->eh);
		if (c->bad || n < fr->loc)
			return 1;
		return advance(fr, ci->code_align ? (n - fr->loc) / ci->code_align : 0);
	case 0x02: return advance(fr, cur_un(c, 1));
	case 0x03: return advance(fr, cur_un(c, 2));
	case 0x04: return advance(fr, cur_un(c, 4));
	case 0x05:							/* offset_extended */
		reg = cur_uleb(c);
		set_rule(s, ci, reg, R_OFFSET, (int64_t)cur_uleb(c) * ci->data_align);
		return 0;
	case 0x06: restore_rule(s, &fr->init, ci, cur_uleb(c)); return 0;
	case 0x07: set_rule(s, ci, cur_uleb(c), R_UNDEF, 0); return 0;
	case 0x08: set_rule(s, ci, cur_uleb(c), R_SAME, 0); return 0;
	case 0x09:							/* register */
		reg = cur_uleb(c);
		n = cur_uleb(c);
		set_rule(s, ci, reg, n == reg ? R_SAME : R_OTHER, 0);
		return 0;
	case 0x0a:							/* remember_state */
		if (fr->depth >= PPF_CFI_MAX_STATE)
			return 1;
		fr->stack[fr->depth++] = *s;
		return 0;
	case 0x0b:							/* restore_state */
		if (!fr->depth)
			return 1;
		*s = fr->stack[--fr->depth];	/* the CFA too, as GCC's epilogues expect */
		return 0;
	case 0x0c:							/* def_cfa */
		s->cfa_reg = (uint32_t)cur_uleb(c);
		s->cfa_off = (int64_t)cur_uleb(c);
		s->cfa_kind = C_REG;
		return 0;
	case 0x0d:							/* def_cfa_register */
		s->cfa_reg = (uint32_t)cur_uleb(c);
		s->cfa_kind = s->cfa_kind == C_REG ? C_REG : C_OTHER;
		return 0;
	case 0x0e:							/* def_cfa_offset */
		s->cfa_off = (int64_t)cur_uleb(c);
		s->cfa_kind = s->cfa_kind == C_REG ? C_REG : C_OTHER;
		return 0;
	case 0x0f:							/* def_cfa_expression */
		n = cur_uleb(c);
		if (c->bad || n > (uint64_t)(c->end - c->p))
			return 1;
		s->cfa_kind = plt_expr(c->p, n) ? C_PLT : C_OTHER;
		c->p += n;
		return 0;
	case 0x10:							/* expression */
	case 0x16:							/* val_expression */
		reg = cur_uleb(c);
		n = cur_uleb(c);
		if (c->bad || n > (uint64_t)(c->end - c->p))
			return 1;
		c->p += n;
		set_rule(s, ci, reg, R_OTHER, 0);
		return 0;
	case 0x11:							/* offset_extended_sf */
		reg = cur_uleb(c);
		set_rule(s, ci, reg, R_OFFSET, cur_sleb(c) * ci->data_align);
		return 0;
	case 0x12:							/* def_cfa_sf */
		s->cfa_reg = (uint32_t)cur_uleb(c);
		s->cfa_off = cur_sleb(c) * ci->data_align;
		s->cfa_kind = C_REG;
		return 0;
	case 0x13:							/* def_cfa_offset_sf */
		s->cfa_off = cur_sleb(c) * ci->data_align;
		s->cfa_kind = s->cfa_kind == C_REG ? C_REG : C_OTHER;
		return 0;
	case 0x14:							/* val_offset */
		reg = cur_uleb(c);
		(void)cur_uleb(c);
		set_rule(s, ci, reg, R_OTHER, 0);
		return 0;
	case 0x15:							/* val_offset_sf */
		reg = cur_uleb(c);
		(void)cur_sleb(c);
		set_rule(s, ci, reg, R_OTHER, 0);
		return 0;
	case 0x2e: (void)cur_uleb(c); return 0;				/* GNU_args_size */
	case 0x2f:							/* GNU_negative_offset_extended */
		reg = cur_uleb(c);
		set_rule(s, ci, reg, R_OFFSET, -(int64_t)cur_uleb(c) * ci->data_align);
		return 0;
	default:
		return 1;
	}
}

/*
 * Run the instructions [p, end) from fr->s.  Return 0 (done), 1 (stopped: bad or unknown
 * instruction; the rest of the FDE becomes unknown), or -ENOMEM.
 */
static int frame_exec(struct frame_run *fr, const uint8_t *p, const uint8_t *end)
{
	struct cur c = { p, end, false };
	int rc = 0;

	while (c.p < c.end && !rc) {
		uint8_t op = *c.p++;

		switch (op >> 6) {
		case 1:
			rc = advance(fr, op & 0x3f);
			if (rc == 1)
				return 0;	/* at the FDE's end: the rest cannot matter */
			break;
		case 2:
			set_rule(&fr->s, fr->ci, op & 0x3f, R_OFFSET,
				 (int64_t)cur_uleb(&c) * fr->ci->data_align);
			break;
		case 3:
			restore_rule(&fr->s, &fr->init, fr->ci, op & 0x3f);
			break;
		default:
			rc = frame_op(fr, &c, op);
			if (rc == 1 && fr->rs && fr->loc >= fr->end)
				return 0;
			break;
		}
		if (c.bad)
			return 1;
	}
	return rc;
}

/* The CIE at section offset @off.  Return: false when it is not a good one. */
static bool cie_parse(const struct sect *sc, uint64_t off, struct cie *ci)
{
	struct cur c = { sc->data + off, sc->data + sc->size, false };
	const uint8_t *aug, *aug_end;
	uint64_t len, id;
	bool dw64 = false;
	uint8_t ver;

	if (off >= sc->size)
		return false;
	len = cur_un(&c, 4);
	if (len == 0xffffffff) {
		len = cur_un(&c, 8);
		dw64 = true;
	}
	if (c.bad || len > (uint64_t)(c.end - c.p))
		return false;
	c.end = c.p + len;
	id = cur_un(&c, dw64 ? 8 : 4);
	if (c.bad || id != (sc->eh ? 0 : dw64 ? UINT64_MAX : 0xffffffffu))
		return false;
	ver = (uint8_t)cur_un(&c, 1);
	aug = c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	if (c.bad || (ver != 1 && ver != 3 && ver != 4) || c.p >= c.end)
		return false;
	c.p++;
	ci->addr_sz = 8;
	if (ver == 4) {
		ci->addr_sz = (uint8_t)cur_un(&c, 1);
		if (cur_un(&c, 1) != 0 || (ci->addr_sz != 4 && ci->addr_sz != 8))
			return false;	/* segmented addresses */
	}
	ci->code_align = cur_uleb(&c);
	ci->data_align = cur_sleb(&c);
	ci->ra_reg = ver == 1 ? (uint32_t)cur_un(&c, 1) : (uint32_t)cur_uleb(&c);
	ci->fde_enc = sc->eh ? 0x00 : ci->addr_sz == 4 ? 0x03 : 0x04;
	ci->aug_z = *aug == 'z';
	if (*aug && !ci->aug_z)
		return false;	/* an augmentation we cannot skip */
	if (ci->aug_z) {
		len = cur_uleb(&c);
		if (c.bad || len > (uint64_t)(c.end - c.p))
			return false;
		aug_end = c.p + len;
		for (const uint8_t *a = aug + 1; *a && !c.bad; a++) {
			uint8_t enc;

			if (*a == 'R') {
				ci->fde_enc = (uint8_t)cur_un(&c, 1);
			} else if (*a == 'L') {
				(void)cur_un(&c, 1);
			} else if (*a == 'P') {
				enc = (uint8_t)cur_un(&c, 1);
				(void)cur_ptr(&c, enc, 0, false);
			} else if (*a != 'S' && *a != 'B') {
				break;	/* unknown: the length lets us skip the rest */
			}
		}
		if (c.bad || c.p > aug_end)
			return false;
		c.p = aug_end;
	}
	ci->insn = c.p;
	ci->insn_end = c.end;
	return !c.bad;
}

/* The FDE whose body (after the CIE pointer) is @c, of the CIE @ci. */
static int fde_do(const struct sect *sc, const struct cie *ci, struct cur *c, struct rows *rs)
{
	struct frame_run *fr;
	uint64_t pc, range;
	int rc;

	pc = cur_ptr(c, ci->fde_enc, sc->addr + (uint64_t)(c->p - sc->data), sc->eh);
	range = cur_ptr(c, ci->fde_enc & 0x0f, 0, false);
	if (ci->aug_z) {
		uint64_t n = cur_uleb(c);

		if (n > (uint64_t)(c->end - c->p))
			c->bad = true;
		else
			c->p += n;
	}
	if (c->bad || !pc || !range || pc + range < pc) {
		rs->st.nr_bad += c->bad;
		return 0;	/* bad, or the FDE of code the linker dropped */
	}
	rs->st.nr_fdes++;
	fr = calloc(1, sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	fr->ci = ci;
	fr->sc = sc;
	fr->s.cfa_kind = C_OTHER;
	rc = frame_exec(fr, ci->insn, ci->insn_end);
	if (rc == 0) {
		fr->init = fr->s;
		fr->rs = rs;
		fr->loc = pc;
		fr->end = pc + range;
		fr->depth = 0;
		rc = frame_exec(fr, c->p, c->end);
	}
	if (rc == 1) {
		rs->st.nr_bad++;
		fr->s = (struct frame_state){ .cfa_kind = C_OTHER };
		if (!fr->rs) {
			fr->loc = pc;
			fr->end = pc + range;
		}
	}
	if (rc >= 0)
		rc = rows_push(rs, fr->loc, fr->end, &fr->s);
	free(fr);
	return rc;
}

static int section_walk(const struct sect *sc, struct rows *rs)
{
	uint64_t off = 0, cie_off = UINT64_MAX;
	struct cie ci;
	bool cie_ok = false;
	int rc = 0;

	while (!rc && !rs->full && sc->size - off >= 4) {
		struct cur c = { sc->data + off, sc->data + sc->size, false };
		uint64_t len = cur_un(&c, 4), id, at;
		bool dw64 = false;

		if (len == 0)
			break;	/* .eh_frame's terminator */
		if (len == 0xffffffff) {
			len = cur_un(&c, 8);
			dw64 = true;
		}
		if (c.bad || len > (uint64_t)(c.end - c.p))
			break;	/* damaged: what follows cannot be found */
		c.end = c.p + len;
		off = (uint64_t)(c.end - sc->data);
		at = (uint64_t)(c.p - sc->data);
		id = cur_un(&c, dw64 ? 8 : 4);
		if (c.bad || id == (sc->eh ? 0 : dw64 ? UINT64_MAX : 0xffffffffu))
			continue;	/* a CIE: read when an FDE uses it */
		if (sc->eh && id > at)
			continue;
		id = sc->eh ? at - id : id;
		if (id != cie_off) {
			cie_off = id;
			cie_ok = cie_parse(sc, id, &ci);
		}
		if (!cie_ok) {
			rs->st.nr_bad++;
			continue;
		}
		rc = fde_do(sc, &ci, &c, rs);
	}
	return rc;
}

static bool same_rule(const struct ppf_unwind_row *a, const struct ppf_unwind_row *b)
{
	return a->cfa == b->cfa && a->ra == b->ra && a->fp == b->fp && a->cfa_off == b->cfa_off &&
	       a->ra_off == b->ra_off && a->fp_off == b->fp_off;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ppf_unwind_row *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * Sort, cut overlaps (.eh_frame's row wins over .debug_frame's, else the one starting
 * first) and merge adjacent equal rows.  The source rides in the top bit of cfa (kinds
 * are < 4) through the sort; rs->src is rewritten for the rows kept.
 */
static void rows_finish(struct rows *rs)
{
	struct ppf_unwind_row *v = rs->v;
	size_t out = 0;

	if (!rs->nr)
		return;
	/* the source rides in the top bit of cfa (free: kinds < 4) through the sort */
	for (size_t i = 0; i < rs->nr; i++)
		v[i].cfa |= (uint8_t)(rs->src[i] << 7);
	qsort(v, rs->nr, sizeof(*v), row_cmp);
	for (size_t i = 0; i < rs->nr; i++) {
		struct ppf_unwind_row r = v[i];
		uint8_t src = r.cfa >> 7;

		r.cfa &= 0x7f;
		while (out && r.start < v[out - 1].end) {
			struct ppf_unwind_row *p = &v[out - 1];

			if (rs->src[out - 1] > src && p->start < r.start) {
				p->end = r.start;	/* .debug_frame gives way to .eh_frame */
				break;
			}
			if (rs->src[out - 1] > src && p->start == r.start) {
				out--;
				continue;
			}
			r.start = p->end;
			break;
		}
		if (r.start >= r.end)
			continue;
		if (out && v[out - 1].end == r.start && same_rule(&v[out - 1], &r)) {
			v[out - 1].end = r.end;
			continue;
		}
		rs->src[out] = src;
		v[out++] = r;
	}
	rs->nr = out;
}

/* The contents of section @scn if it may be read: in the file, of a sane size, not compressed. */
static bool section_data(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t file_size, struct sect *out)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED) ||
	    sh->sh_size > (256u << 20) || sh->sh_offset > file_size ||
	    sh->sh_size > file_size - sh->sh_offset)
		return false;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size != sh->sh_size)
		return false;
	out->data = d->d_buf;
	out->size = d->d_size;
	out->addr = sh->sh_addr;
	return true;
}

int ppf_cfi_read(Elf *elf, uint64_t file_size, struct ppf_unwind_row **rows, size_t *nr,
		 struct ppf_cfi_stats *st)
{
	struct rows rs = { 0 };
	struct sect sc[2] = { { .eh = true }, { .eh = false } };
	bool have[2] = { false, false };
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int rc = 0;

	*rows = NULL;
	*nr = 0;
	if (st)
		memset(st, 0, sizeof(*st));
	if (!gelf_getehdr(elf, &eh))
		return 0;
	if (eh.e_machine != EM_X86_64)
		return -ENOTSUP;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		int k;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		k = !strcmp(name, ".eh_frame") ? 0 : !strcmp(name, ".debug_frame") ? 1 : -1;
		if (k >= 0 && !have[k])
			have[k] = section_data(scn, &sh, file_size, &sc[k]);
	}
	for (int k = 0; k < 2 && !rc; k++) {
		rs.cur_src = (uint8_t)k;
		if (have[k])
			rc = section_walk(&sc[k], &rs);
	}
	if (!rc)
		rows_finish(&rs);
	if (st)
		*st = rs.st;
	free(rs.src);
	if (rc) {
		free(rs.v);
		return rc;
	}
	if (!rs.nr) {
		free(rs.v);
		return 0;
	}
	if (st) {
		st->nr_unknown = 0;
		for (size_t i = 0; i < rs.nr; i++)
			st->nr_unknown += rs.v[i].cfa == PPF_CFA_UNKNOWN;
	}
	*rows = rs.v;
	*nr = rs.nr;
	return 0;
}
