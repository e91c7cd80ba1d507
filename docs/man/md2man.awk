# SPDX-License-Identifier: MIT
#
# md2man.awk - the markdown of docs/*.md as man(7) source with tbl tables
# (pp-capture(5) and pp-state(5) are docs/capture-format.md and docs/state-format.md
# through this; mkman.sh runs it).
#
# It knows what those pages use and nothing more: the first "# " title is
# dropped (the page template has NAME), "## " is .SH in capitals, "### " .SS,
# paragraphs, "- " lists with indented continuation lines, ``` blocks and
# blocks indented by four spaces kept as they are, `code` and **bold** in bold, *emphasis* in italics,
# [text](link) as its text, and |tables| as tbl tables whose long columns
# wrap (text blocks with widths that fit 65 columns).  Run it with LC_ALL=C:
# it counts bytes.

function esc(s, at_bol) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	gsub(/"/, "\\(dq", s)
	if (at_bol && s ~ /^[.']/)
		s = "\\&" s
	return s
}

# Inline markup to fonts; the state carries over lines (a span may wrap).
function inl(s,    out, c, n, i, t, m) {
	out = ""
	n = length(s)
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (c == "`") {
			out = out (in_code ? "\\fR" : "\\fB")
			in_code = !in_code
		} else if (in_code) {
			out = out esc(c, 0)
		} else if (substr(s, i, 2) == "**") {
			out = out (in_bold ? "\\fR" : "\\fB")
			in_bold = !in_bold
			i++
		} else if (c == "*" && (in_ital || substr(s, i + 1, 1) ~ /[A-Za-z_]/)) {
			out = out (in_ital ? "\\fR" : "\\fI")
			in_ital = !in_ital
		} else if (c == "[" && match(substr(s, i), /^\[[^]]*\]\([^)]*\)/)) {
			t = substr(s, i + 1, RLENGTH)
			m = index(t, "]")
			out = out esc(substr(t, 1, m - 1), 0)
			i += RLENGTH - 1
		} else {
			out = out esc(c, 0)
		}
	}
	return out
}

function reset_fonts() {
	in_code = in_bold = in_ital = 0
}

# The width a cell takes on the page: its text without markup.
function shown_len(s) {
	gsub(/`|\*\*|\*/, "", s)
	return length(s)
}

function cell_text(s) {
	reset_fonts()
	s = inl(s)
	if (in_code || in_bold || in_ital)
		s = s "\\fR"
	reset_fonts()
	return s
}

function end_para() {
	if (in_list) {
		in_list = 0
	}
	para = 1
}

# The longest word of @s, or @w if that is longer.
function longest_word(s, w,    n, i, parts) {
	n = split(s, parts, " ")
	for (i = 1; i <= n; i++)
		if (shown_len(parts[i]) > w)
			w = shown_len(parts[i])
	return w
}

function flush_table(    r, c, fmt, line, total, avail, nb, sumb, w, wid, word, blk, best, lines, hdr, t) {
	if (!nrows)
		return
	for (c = 1; c <= ncols; c++) {
		wid[c] = 0
		blk[c] = 0
	}
	for (r = 1; r <= nrows; r++)
		for (c = 1; c <= ncols; c++) {
			if (shown_len(cell[r, c]) > wid[c])
				wid[c] = shown_len(cell[r, c])
			word[c] = longest_word(cell[r, c], word[c])
		}
	# the widest plain columns become text blocks until the table fits
	for (;;) {
		total = 3 * (ncols - 1)
		for (c = 1; c <= ncols; c++)
			total += !blk[c] ? wid[c] : word[c] > 8 ? word[c] : 8
		if (total <= 65)
			break
		best = 0
		for (c = 1; c <= ncols; c++)
			if (!blk[c] && (!best || wid[c] > wid[best]))
				best = c
		if (!best)
			break
		blk[best] = 1
	}
	avail = 65 - 3 * (ncols - 1)
	sumb = 0
	for (c = 1; c <= ncols; c++)
		if (blk[c])
			sumb += wid[c]
		else
			avail -= wid[c]
	print ".PP"
	print ".ad l"		# text blocks ragged-right, unhyphenated
	print ".nh"
	print ".TS"
	print "allbox;"
	for (t = 0; t < 2; t++) {
		line = ""
		for (c = 1; c <= ncols; c++) {
			fmt = t == 0 ? "lB" : "l"
			if (blk[c]) {
				w = int(avail * wid[c] / sumb)
				if (w < 8)
					w = 8
				if (w < word[c])
					w = word[c]	# a word longer than its block cannot break
				fmt = fmt "w(" w "n)"
			}
			line = line (c > 1 ? " " : "") fmt
		}
		print line (t == 1 ? "." : "")
	}
	for (r = 1; r <= nrows; r++) {
		line = ""
		for (c = 1; c <= ncols; c++) {
			t = cell_text(cell[r, c])
			if (r == 1 && blk[c])
				t = "\\fB" t "\\fR"
			if (blk[c])
				t = "T{\n" t "\nT}"
			line = line (c > 1 ? "\t" : "") t
		}
		print line
	}
	print ".TE"
	print ".sp"
	print ".ad"
	print ".hy"
	nrows = 0
	para = 1
}

function table_row(s,    n, i, parts) {
	gsub(/\\\|/, "\001", s)
	sub(/^ *\|/, "", s)
	sub(/\| *$/, "", s)
	n = split(s, parts, "|")
	if (s ~ /^[ :|-]*$/)
		return		# the |---|---| line
	nrows++
	if (n > ncols || nrows == 1)
		ncols = n
	for (i = 1; i <= n; i++) {
		gsub(/\001/, "|", parts[i])
		sub(/^ +/, "", parts[i])
		sub(/ +$/, "", parts[i])
		cell[nrows, i] = parts[i]
	}
}

BEGIN {
	para = 1
	title_seen = 0
}

# fenced code, kept as it is
/^```/ {
	if (nrows)
		flush_table()
	if (!in_pre) {
		print ".PP"
		print ".RS 4"
		print ".nf"
		in_pre = 1
	} else {
		print ".fi"
		print ".RE"
		in_pre = 0
		para = 1
	}
	next
}
in_pre {
	print esc($0, 1)
	next
}

# an indented code block (four spaces after a blank line, not in a list), kept as it is
in_ind && /^    / {
	print esc(substr($0, 5), 1)
	next
}
in_ind {
	print ".fi"
	print ".RE"
	in_ind = 0
	para = 1
}
para && !in_list && /^    [^ ]/ {
	print ".PP"
	print ".RS 4"
	print ".nf"
	print esc(substr($0, 5), 1)
	in_ind = 1
	next
}

/^ *\|/ {
	table_row($0)
	next
}
nrows {
	flush_table()
}

/^# / && !title_seen {
	title_seen = 1
	next
}
/^## / {
	s = substr($0, 4)
	print ".SH " esc(toupper(s), 0)
	reset_fonts()
	para = 0
	in_list = 0
	next
}
/^### / {
	print ".SS " esc(substr($0, 5), 0)
	reset_fonts()
	para = 0
	in_list = 0
	next
}
/^[ \t]*$/ {
	end_para()
	next
}
/^- / {
	print ".IP \\(bu 2"
	print inl(substr($0, 3))
	in_list = 1
	para = 0
	next
}
in_list && /^  / {
	s = $0
	sub(/^ +/, "", s)
	print esc_bol(inl(s))
	next
}
{
	if (para)
		print ".PP"
	para = 0
	s = $0
	sub(/^ +/, "", s)
	print esc_bol(inl(s))
}

# A line that would start with a control character after markup.
function esc_bol(s) {
	return s ~ /^[.']/ ? "\\&" s : s
}

END {
	if (nrows)
		flush_table()
	if (in_pre || in_ind) {
		print ".fi"
		print ".RE"
	}
}
