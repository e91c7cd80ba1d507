/* SPDX-License-Identifier: MIT */
/*
 * usdt.h - the USDT probes of a binary (its .note.stapsdt notes) and their uprobe definitions.
 *
 * <sys/sdt.h> leaves one ELF note (owner "stapsdt", type 3) per probe site: the site's
 * address, the link-time address of .stapsdt.base, the semaphore's address (0: none), then
 * provider, name and argument specs as NUL-terminated strings.  When a tool such as prelink
 * moved the binary after linking, .stapsdt.base's section address differs from the one
 * recorded, and every address of the note shifts by that difference.  Addresses become
 * file offsets through the PT_LOAD segment that holds them, which is what uprobe_events
 * takes ("PATH:0xOFFSET(0xSEMAPHORE_OFFSET)").
 * Notes are untrusted: each is checked against its descriptor's size, and a malformed one
 * is skipped and counted, never a crash.
 * Not here: argument operands (usdt-arg.c), writing uprobe_events (cmd-usdt.c).
 */
#ifndef PP_RECORD_USDT_H
#define PP_RECORD_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct Elf;
struct pp_buf;

#define REC_USDT_NOTE_TYPE 3
#define REC_USDT_NOTE_OWNER "stapsdt"
#define REC_USDT_MAX_PROBES (1u << 20)	/* notes read from one file at most */
#define REC_USDT_MAX_NAME 64		/* tracefs's limit on group and event names */

/**
 * struct rec_usdt_note - one decoded note descriptor; the strings point into it (borrowed)
 * @addr: the probe site's link-time address
 * @base: the link-time address of .stapsdt.base
 * @semaphore: the link-time address of the probe's semaphore, 0 when it has none
 * @provider: the provider ("libc")
 * @name: the probe name ("setjmp")
 * @args: the argument specs separated by spaces ("-4@%edi 8@-16(%rbp)"), maybe ""
 */
struct rec_usdt_note {
	uint64_t addr, base, semaphore;
	const char *provider, *name, *args;
};

/**
 * rec_usdt_note_decode() - decode the descriptor of one stapsdt note
 * @desc: the descriptor bytes
 * @desc_sz: their number
 * @is64: ELFCLASS64 (8-byte addresses) rather than ELFCLASS32
 * @msb: big-endian file
 * @out: receives the note; its strings point into @desc
 *
 * Return: 0, or PP_EBAD_RECORD when @desc is too short for three addresses and three
 * NUL-terminated strings, or holds bytes after them.
 */
int rec_usdt_note_decode(const void *desc, size_t desc_sz, bool is64, bool msb,
			 struct rec_usdt_note *out);

/**
 * struct rec_usdt_probe - one probe site of a file
 * @provider, @name, @args: as in the note (raw bytes: escape them before printing)
 * @addr, @base, @semaphore: as in the note
 * @pc: @addr moved by the .stapsdt.base adjustment (equal to @addr unless prelinked)
 * @off: the file offset of @pc
 * @sema_off: the file offset of the (adjusted) semaphore, 0 when there is none
 */
struct rec_usdt_probe {
	char *provider, *name, *args;
	uint64_t addr, base, semaphore;
	uint64_t pc;
	uint64_t off;
	uint64_t sema_off;
};

/**
 * struct rec_usdt_file - the probes of one binary
 * @path: the path it was loaded from
 * @machine: the ELF e_machine (arguments are translated for EM_X86_64 and EM_386 only)
 * @probes: in note order, @nr_probes of them
 * @nr_bad: notes skipped (malformed, or an address outside the file's segments)
 * @bad_msg: why the first of them was skipped ("" when none was)
 */
struct rec_usdt_file {
	char *path;
	uint16_t machine;
	struct rec_usdt_probe *probes;
	size_t nr_probes;
	size_t nr_bad;
	char bad_msg[256];
	/* private: kept open for the symbol lookups of PC-relative arguments */
	struct Elf *elf;
	int fd;
};

/**
 * rec_usdt_load() - read the USDT probes of the ELF file at @path
 * @path: the binary or shared library
 * @out: receives the probes (NULL on error)
 * @msg: receives a one-line message on error
 * @msg_sz: its size
 *
 * Return: 0; -errno when the file cannot be opened; PP_EBAD_MAGIC when it is not an
 * ELF file (or is one without program headers); PP_ENOT_FOUND when it has no
 * .note.stapsdt section.  A file whose notes are all malformed loads with no probes and
 * @nr_bad set.  On success the caller frees *@out with rec_usdt_file_free().
 */
int rec_usdt_load(const char *path, struct rec_usdt_file **out, char *msg, size_t msg_sz);

/**
 * rec_usdt_load_mem() - as rec_usdt_load() from an ELF image in memory
 * @image: the file's bytes; must outlive *@out
 * @image_sz: their number
 * @path: the name it goes by
 * @out: receives the probes
 * @msg: receives a one-line message on error
 * @msg_sz: its size
 *
 * Return: as rec_usdt_load().
 */
int rec_usdt_load_mem(void *image, size_t image_sz, const char *path,
		      struct rec_usdt_file **out, char *msg, size_t msg_sz);

/** rec_usdt_file_free() - free @f (NULL is a no-op). */
void rec_usdt_file_free(struct rec_usdt_file *f);

/**
 * rec_usdt_file_sym() - the ELF address of symbol @name of @f (.symtab, else .dynsym)
 * @arg: the struct rec_usdt_file (a rec_usdt_sym_fn for usdt-arg.h)
 * @name: the symbol
 * @vaddr: receives its address
 * Return: 0 or PP_ENOT_FOUND.
 */
int rec_usdt_file_sym(void *arg, const char *name, uint64_t *vaddr);

/**
 * struct rec_usdt_spec - a probe selection "[[provider:]name@]binpath[@addr][ fmts]"
 * @provider: NULL for any
 * @name: NULL for any
 * @path: the binary as given
 * @addr: the note address to match (@has_addr), to tell apart sites of one probe
 * @fmts: argument formats after the first blank ("n=%s:s32 s=+0(%s):string"), or NULL
 */
struct rec_usdt_spec {
	char *provider, *name, *path, *fmts;
	uint64_t addr;
	bool has_addr;
};

/**
 * rec_usdt_spec_parse() - parse a probe selection
 * @text: "sdt:fire@/bin/x", "fire@/bin/x@0x1139", "/bin/x", "fire@x n=%s:s32" ...
 * @out: receives the parts (the caller releases it with rec_usdt_spec_release())
 * @msg: receives a one-line message on error
 * @msg_sz: its size
 *
 * An '@' before any '/' ends the [provider:]name part; a last '@' followed by a number
 * is the address.  Return: 0 or PP_ESYNTAX (@out is then empty).
 */
int rec_usdt_spec_parse(const char *text, struct rec_usdt_spec *out, char *msg, size_t msg_sz);

/** rec_usdt_spec_release() - free the parts of @s. */
void rec_usdt_spec_release(struct rec_usdt_spec *s);

/** rec_usdt_spec_match() - whether probe @p is one that @s selects. */
bool rec_usdt_spec_match(const struct rec_usdt_spec *s, const struct rec_usdt_probe *p);

/** rec_usdt_name_ok() - whether @s can be a tracefs group or event name ([A-Za-z_][A-Za-z0-9_]*). */
bool rec_usdt_name_ok(const char *s);

/**
 * rec_usdt_uprobe_def() - the uprobe_events line that creates probe @p, without newline
 * @f: the probe's file (for the symbols of PC-relative arguments)
 * @p: the probe
 * @kpath: the path written for the kernel (absolute, no blank or control character)
 * @fmts: NULL: every argument as argN=FETCH:TYPE; else one word per argument, each
 *        "NAME=...%s..." with %s replaced by the fetch argument (a word without %s stands
 *        for argN=FETCH:TYPE), and arguments beyond the words are left out (perf-prof's)
 * @def: receives "p:PROVIDER/NAME KPATH:0x%016llx[(0xSEMAPHORE)] ARGS..."
 * @warn: receives one line for each argument left out because a uprobe cannot fetch it
 * @msg: receives a one-line message on error
 * @msg_sz: its size
 *
 * Return: 0, or PP_ESYNTAX when the provider or name is not a tracefs name, an argument
 * spec is malformed, or a format word holds a control character.
 */
int rec_usdt_uprobe_def(const struct rec_usdt_file *f, const struct rec_usdt_probe *p,
			const char *kpath, const char *fmts, struct pp_buf *def, struct pp_buf *warn,
			char *msg, size_t msg_sz);

/**
 * rec_usdt_escape() - append @s to @b with what a terminal would act on escaped
 *
 * Bytes outside printable ASCII become \xNN, a backslash becomes "\\": text read from a
 * binary never reaches a terminal raw.
 */
void rec_usdt_escape(struct pp_buf *b, const char *s);

#endif
