/* dwarf_vars.c: program variables from DWARF (dwarf_vars.h). */
#define _GNU_SOURCE
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/dwarf_vars.h"
#include "util/names.h"

/* name demangled when it is a C++ name (util/names.h), into out (cap bytes): 1 if it was */
static int demangled(const char *name, char *out, size_t cap)
{
	char *d = name ? dt_name_demangle(name, strlen(name)) : NULL;
	if (d)
		snprintf(out, cap, "%s", d);
	free(d);
	return d != NULL;
}

int dv_func_name(Dwarf_Die *f, char *out, size_t cap)
{
	/* dwarf_attr_integrate follows DW_AT_abstract_origin and DW_AT_specification: a member
	 * function's linkage name is on its declaration in the class */
	Dwarf_Attribute at;
	const char *link = dwarf_formstring(dwarf_attr_integrate(f, DW_AT_linkage_name, &at));
	if (!link)
		link = dwarf_formstring(dwarf_attr_integrate(f, DW_AT_MIPS_linkage_name, &at));
	const char *name = dwarf_formstring(dwarf_attr_integrate(f, DW_AT_name, &at));
	/* a name that is itself mangled: gcc names an OpenMP region's function by its parent's
	 * symbol (_ZN4grid5FieldIdE6smoothEi._omp_fn.0) */
	if (demangled(link, out, cap) || demangled(name, out, cap))
		return 0;
	if (!name)
		return -1;
	snprintf(out, cap, "%s", name);
	return 0;
}

static void type_name(Dwarf_Die *t, dt_buf *out, int depth)
{
	if (depth > 8) {
		buf_put(out, "?", 1);
		return;
	}
	Dwarf_Attribute at;
	Dwarf_Die sub;
	int has = dwarf_attr_integrate(t, DW_AT_type, &at) && dwarf_formref_die(&at, &sub);
	const char *nm = dwarf_diename(t);
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		if (has)
			type_name(&sub, out, depth + 1);
		else
			buf_put(out, "void", 4);
		buf_put(out, "*", 1);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		if (has)
			type_name(&sub, out, depth + 1);
		else
			buf_put(out, "void", 4);
		return;
	case DW_TAG_array_type: {
		if (has)
			type_name(&sub, out, depth + 1);
		Dwarf_Die ch;
		if (dwarf_child(t, &ch) == 0)
			do {
				if (dwarf_tag(&ch) != DW_TAG_subrange_type)
					continue;
				Dwarf_Word n = 0;
				Dwarf_Attribute ua;
				char b[32];
				if (dwarf_attr_integrate(&ch, DW_AT_count, &ua) &&
				    dwarf_formudata(&ua, &n) == 0)
					snprintf(b, sizeof b, "[%llu]", (unsigned long long)n);
				else if (dwarf_attr_integrate(&ch, DW_AT_upper_bound, &ua) &&
					 dwarf_formudata(&ua, &n) == 0)
					snprintf(b, sizeof b, "[%llu]", (unsigned long long)n + 1);
				else
					snprintf(b, sizeof b, "[]");
				buf_put(out, b, strlen(b));
			} while (dwarf_siblingof(&ch, &ch) == 0);
		return;
	}
	case DW_TAG_structure_type:
		buf_put(out, "struct ", 7);
		break;
	case DW_TAG_union_type:
		buf_put(out, "union ", 6);
		break;
	case DW_TAG_enumeration_type:
		buf_put(out, "enum ", 5);
		break;
	default:
		break;
	}
	if (nm)
		buf_put(out, nm, strlen(nm));
	else
		buf_put(out, "?", 1);
}

void dv_type_name(Dwarf_Die *t, dt_buf *out)
{
	type_name(t, out, 0);
}

void dv_locals_free(dv_local *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].type);
		free(v[i].file);
	}
	free(v);
}

/* Adds variable DIE ch when it is an aggregate at DW_OP_fbreg at pc (DWARF address); an
 * aggregate without such a location there goes to lost (when not NULL), its lo the reason
 * (enum dv_lost). */
static void add_local(Dwarf_Die *ch, Dwarf_Addr pc, dv_local **out, size_t *n, size_t *cap,
		      dv_local **lost, size_t *nlost, size_t *caplost)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;
	const char *name = dwarf_diename(ch);
	Dwarf_Die ty, peeled;
	if (!name || !dwarf_attr_integrate(ch, DW_AT_type, &at) || !dwarf_formref_die(&at, &ty) ||
	    dwarf_peel_type(&ty, &peeled) != 0)
		return;
	int tag = dwarf_tag(&peeled);
	Dwarf_Word size = 0;
	if ((tag != DW_TAG_array_type && tag != DW_TAG_structure_type &&
	     tag != DW_TAG_union_type && tag != DW_TAG_class_type) ||
	    dwarf_aggregate_size(&peeled, &size) != 0 || !size)
		return;
	int why = 0, got = 0;
	if (!dwarf_attr_integrate(ch, DW_AT_location, &at))
		why = dwarf_hasattr_integrate(ch, DW_AT_const_value) ? 0 : DV_LOST_NO_LOCATION;
	else if ((got = dwarf_getlocation_addr(&at, pc, &ops, &nops, 1)) != 1)
		why = got == 0 ? DV_LOST_NOT_HERE : DV_LOST_NO_LOCATION;
	else if (nops != 1 || ops[0].atom != DW_OP_fbreg)
		why = DV_LOST_REGISTERS;
	dt_buf tb = { 0 };
	type_name(&ty, &tb, 0);
	buf_byte(&tb, 0);
	const char *file = dwarf_decl_file(ch);
	int line = 0;
	if (dwarf_decl_line(ch, &line) != 0)
		line = 0;
	if (why || got != 1) {
		if (why && lost) {
			grow((void **)lost, caplost, *nlost + 1, sizeof **lost);
			(*lost)[(*nlost)++] = (dv_local){ why, size, dwarf_dieoffset(ch), xstrdup(name),
							  xstrdup((const char *)tb.p),
							  xstrdup(file ? file : ""), line };
		}
		buf_free(&tb);
		return;
	}
	int64_t lo = (int64_t)ops[0].number;
	grow((void **)out, cap, *n + 1, sizeof **out);
	(*out)[(*n)++] = (dv_local){ lo, size, dwarf_dieoffset(ch), xstrdup(name),
				     xstrdup((const char *)tb.p), xstrdup(file ? file : ""), line };
	buf_free(&tb);
}

#define DV_SCOPES 64

int dv_pc_scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int n, int max, int blocks,
		 int depth)
{
	Dwarf_Die ch;
	if (depth > 64 || dwarf_child(parent, &ch) != 0)
		return n;
	do {
		int tag = dwarf_tag(&ch);
		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_lexical_block)
			continue;
		int has = dwarf_haspc(&ch, pc) > 0;
		/* a block without addresses of its own may still hold an inlined call */
		int bare = tag == DW_TAG_lexical_block && !dwarf_hasattr(&ch, DW_AT_low_pc) &&
			   !dwarf_hasattr(&ch, DW_AT_ranges);
		if (!has && !bare)
			continue;
		int m = n;
		if (has && (blocks || tag != DW_TAG_lexical_block) && m < max)
			out[m++] = ch;
		int k = dv_pc_scopes(&ch, pc, out, m, max, blocks, depth + 1);
		if (has || k > m)
			return k;
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return n;
}

int dv_stack_locals(Dwfl_Module *m, uint64_t pc, dv_local **out, size_t *n, int *base)
{
	return dv_stack_locals_lost(m, pc, out, n, base, NULL, NULL);
}

/* The scopes around pc (a DWARF address of m) up to the function whose frame it is, innermost
 * first, into scopes[0..*fn] (*fn the subprogram); *bias the module's. 0, or DV_NO_DWARF. */
static int frame_scopes(Dwfl_Module *m, uint64_t pc, Dwarf_Die *scopes, int *fn, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = m ? dwfl_module_addrdie(m, pc, bias) : NULL;
	/* without .debug_aranges (clang's DWARF 5) some libdw find no unit: look through them */
	if (m && !cu) {
		Dwarf_Die *c = NULL;
		while ((c = dwfl_module_nextcu(m, c, bias)) && dwarf_haspc(c, pc - *bias) <= 0)
			;
		cu = c;
	}
	/* the scopes around pc, innermost first, up to the function whose frame it is: in code
	 * the compiler inlined, through the inlined calls' scopes (whose variables live in that
	 * frame) to the real function, which libdw's dwarf_getscopes does not reach */
	int ns = cu ? dv_pc_scopes(cu, pc - *bias, scopes, 0, DV_SCOPES, 1, 0) : 0;
	for (int i = 0; i < ns / 2; i++) {
		Dwarf_Die t = scopes[i];
		scopes[i] = scopes[ns - 1 - i];
		scopes[ns - 1 - i] = t;
	}
	*fn = -1;
	for (int i = 0; i < ns && *fn < 0; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			*fn = i;
	return *fn < 0 ? DV_NO_DWARF : 0;
}

int dv_stack_locals_lost(Dwfl_Module *m, uint64_t pc, dv_local **out, size_t *n, int *base,
			 dv_local **lost, size_t *nlost)
{
	*out = NULL;
	*n = 0;
	if (lost) {
		*lost = NULL;
		*nlost = 0;
	}
	*base = DV_BASE_CFA;
	Dwarf_Addr bias = 0;
	Dwarf_Die scopes[DV_SCOPES];
	int fn;
	if (frame_scopes(m, pc, scopes, &fn, &bias))
		return DV_NO_DWARF;
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;
	if (!dwarf_attr_integrate(&scopes[fn], DW_AT_frame_base, &at) ||
	    dwarf_getlocation(&at, &ops, &nops) != 0 || nops != 1)
		return DV_FRAME_BASE;
	/* DWARF's x86-64 registers 6 and 7 are rbp and rsp */
	if (ops[0].atom == DW_OP_call_frame_cfa)
		*base = DV_BASE_CFA;
	else if (ops[0].atom == DW_OP_reg6 || (ops[0].atom == DW_OP_breg6 && !ops[0].number))
		*base = DV_BASE_RBP;
	else if (ops[0].atom == DW_OP_reg7 || (ops[0].atom == DW_OP_breg7 && !ops[0].number))
		*base = DV_BASE_RSP;
	else
		return DV_FRAME_BASE;
	size_t cap = 0, caplost = 0;
	for (int i = 0; i <= fn; i++) {
		Dwarf_Die ch;
		if (dwarf_child(&scopes[i], &ch) != 0)
			continue;
		do {
			int tag = dwarf_tag(&ch);
			if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter)
				add_local(&ch, pc - bias, out, n, &cap, lost, nlost, &caplost);
		} while (dwarf_siblingof(&ch, &ch) == 0);
	}
	return DV_OK;
}

/* The register variable DIE ch's value is in at pc (DWARF address), -1 none: a pointer whose
 * location there is DW_OP_regN (or DW_OP_regx), or DW_OP_bregN with an offset as a value
 * (DW_OP_stack_value: the register is a base the pointer is computed from). */
static int reg_of(Dwarf_Die *ch, Dwarf_Addr pc)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die ty, peeled;
	if (!dwarf_attr_integrate(ch, DW_AT_type, &at) || !dwarf_formref_die(&at, &ty) ||
	    dwarf_peel_type(&ty, &peeled) != 0 || dwarf_tag(&peeled) != DW_TAG_pointer_type)
		return -1;
	if (!dwarf_attr_integrate(ch, DW_AT_location, &at) ||
	    dwarf_getlocation_addr(&at, pc, &ops, &nops, 1) != 1)
		return -1;
	if (nops == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg16)
		return ops[0].atom - DW_OP_reg0;
	if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number <= 16)
		return (int)ops[0].number;
	if (nops == 2 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg16 &&
	    ops[1].atom == DW_OP_stack_value)
		return ops[0].atom - DW_OP_breg0;
	return -1;
}

int dv_reg_vars(Dwfl_Module *m, uint64_t pc, uint64_t at, dv_local **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	Dwarf_Addr bias = 0;
	Dwarf_Die scopes[DV_SCOPES];
	int fn;
	if (frame_scopes(m, pc, scopes, &fn, &bias))
		return DV_NO_DWARF;
	size_t cap = 0;
	for (int i = 0; i <= fn; i++) {
		Dwarf_Die ch;
		if (dwarf_child(&scopes[i], &ch) != 0)
			continue;
		do {
			int tag = dwarf_tag(&ch);
			const char *name = dwarf_diename(&ch);
			if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) || !name)
				continue;
			int reg = reg_of(&ch, at - bias);
			if (reg < 0)
				continue;
			Dwarf_Attribute ta;
			Dwarf_Die ty;
			dt_buf tb = { 0 };
			if (dwarf_attr_integrate(&ch, DW_AT_type, &ta) && dwarf_formref_die(&ta, &ty))
				type_name(&ty, &tb, 0);
			buf_byte(&tb, 0);
			const char *file = dwarf_decl_file(&ch);
			int line = 0;
			if (dwarf_decl_line(&ch, &line) != 0)
				line = 0;
			grow((void **)out, &cap, *n + 1, sizeof **out);
			(*out)[(*n)++] = (dv_local){ reg, 8, dwarf_dieoffset(&ch), xstrdup(name),
						     xstrdup((const char *)tb.p),
						     xstrdup(file ? file : ""), line };
			buf_free(&tb);
		} while (dwarf_siblingof(&ch, &ch) == 0);
	}
	return DV_OK;
}
