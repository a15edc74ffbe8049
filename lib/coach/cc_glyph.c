/*
 * Operators by their shape (the reasons and the rules are in cc_glyph.h).
 * Sizes are measured against H, the height of the line's digits: the
 * median top and bottom of its tall components.  No threshold depends on
 * the font size or the resolution.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_glyph.h"

/* A line box larger than this is a picture, not a line of print. */
#define MAX_AREA (4L * 1000 * 1000)
#define MAX_COMPS 4096

struct comp {
	int x0, y0, x1, y1;	/* region coordinates, [x0, x1) */
	int label;
	long n;			/* pixels */
	int glyph;		/* the glyph it belongs to */
	int dropped;
};

struct glyph {
	int x0, y0, x1, y1;
	int first, count;	/* comps (sorted by glyph) */
	char op;		/* the operator, or 0 */
};

struct region {
	const unsigned char *ink;
	int wp;			/* page width */
	int ox, oy, w, h;	/* the region in the page */
	int *label;		/* w x h, 0 = background */
};

static int
at(const struct region *r, int x, int y)
{
	return r->ink[(size_t)(r->oy + y) * (size_t)r->wp + (size_t)(r->ox + x)];
}

/* Label 8-connected components with an explicit stack (no recursion). */
static int
label_components(struct region *r, struct comp *c, int max)
{
	size_t cap = 1024, sp;
	int *stack = cc_xmalloc(cap * 2 * sizeof *stack);
	int n = 0;

	for (int y = 0; y < r->h; y++) {
		for (int x = 0; x < r->w; x++) {
			struct comp *k;

			if (!at(r, x, y) || r->label[(size_t)y * (size_t)r->w + (size_t)x])
				continue;
			if (n >= max) {
				free(stack);
				return -1;
			}
			k = &c[n++];
			*k = (struct comp){ x, y, x + 1, y + 1, n, 0, -1, 0 };
			sp = 0;
			stack[sp * 2] = x;
			stack[sp * 2 + 1] = y;
			sp++;
			r->label[(size_t)y * (size_t)r->w + (size_t)x] = n;
			while (sp) {
				int px, py;

				sp--;
				px = stack[sp * 2];
				py = stack[sp * 2 + 1];
				k->n++;
				if (px < k->x0) k->x0 = px;
				if (py < k->y0) k->y0 = py;
				if (px + 1 > k->x1) k->x1 = px + 1;
				if (py + 1 > k->y1) k->y1 = py + 1;
				for (int dy = -1; dy <= 1; dy++) {
					for (int dx = -1; dx <= 1; dx++) {
						int nx = px + dx, ny = py + dy;
						size_t i;

						if (nx < 0 || ny < 0 || nx >= r->w || ny >= r->h)
							continue;
						i = (size_t)ny * (size_t)r->w + (size_t)nx;
						if (!at(r, nx, ny) || r->label[i])
							continue;
						r->label[i] = n;
						if (sp == cap) {
							cap *= 2;
							stack = cc_xrealloc(stack, cap * 2 * sizeof *stack);
						}
						stack[sp * 2] = nx;
						stack[sp * 2 + 1] = ny;
						sp++;
					}
				}
			}
		}
	}
	free(stack);
	return n;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int
cmp_comp_x(const void *a, const void *b)
{
	const struct comp *x = a, *y = b;

	if (x->x0 != y->x0)
		return (x->x0 > y->x0) - (x->x0 < y->x0);
	return (x->y0 > y->y0) - (x->y0 < y->y0);
}

static int
cmp_comp_glyph_y(const void *a, const void *b)
{
	const struct comp *x = a, *y = b;

	if (x->glyph != y->glyph)
		return (x->glyph > y->glyph) - (x->glyph < y->glyph);
	return (x->y0 > y->y0) - (x->y0 < y->y0);
}

/* Ink fraction of one component in a rectangle of its own box. */
static double
density(const struct region *r, const struct comp *k, double fx0, double fy0,
    double fx1, double fy1)
{
	int w = k->x1 - k->x0, h = k->y1 - k->y0;
	int x0 = k->x0 + (int)(fx0 * w), x1 = k->x0 + (int)(fx1 * w + 0.999);
	int y0 = k->y0 + (int)(fy0 * h), y1 = k->y0 + (int)(fy1 * h + 0.999);
	long on = 0, all = 0;

	if (x1 <= x0)
		x1 = x0 + 1;
	if (y1 <= y0)
		y1 = y0 + 1;
	for (int y = y0; y < y1 && y < k->y1; y++)
		for (int x = x0; x < x1 && x < k->x1; x++, all++)
			on += r->label[(size_t)y * (size_t)r->w + (size_t)x] == k->label;
	return all ? (double)on / (double)all : 0;
}

static int
flat(const struct comp *k)
{
	return (k->x1 - k->x0) >= 2 * (k->y1 - k->y0) + 1;
}

/* The operator a glyph shows, or 0 (the rules are in cc_glyph.h). */
static char
classify(const struct region *r, const struct glyph *g, const struct comp *c,
    double top, double bottom)
{
	double H = bottom - top;
	int gw = g->x1 - g->x0, gh = g->y1 - g->y0;
	double mid = (g->y0 + g->y1) / 2.0;

	/* a box to write the answer in: a tall, hollow square */
	if (g->count == 1 && gh >= 0.8 * H && gw * 4 >= gh * 3 && gw * 3 <= gh * 4) {
		const struct comp *k = &c[g->first];

		if (density(r, k, 0.3, 0.3, 0.7, 0.7) < 0.02 &&
		    density(r, k, 0, 0, 0.1, 0.1) > 0.3 && density(r, k, 0.9, 0.9, 1, 1) > 0.3 &&
		    density(r, k, 0.4, 0, 0.6, 0.1) > 0.3 && density(r, k, 0, 0.4, 0.1, 0.6) > 0.3)
			return 'b';
	}
	/* operators are shorter than digits and stand clear of the baseline
	   and the top: the middle of the glyph is in the middle of the line */
	if (gh > 0.85 * H || mid < top + 0.2 * H || mid > bottom - 0.15 * H)
		return 0;
	if (g->count == 3) {
		const struct comp *a = &c[g->first], *b = a + 1, *d = a + 2;
		int bw = b->x1 - b->x0;

		if (flat(b) && a->y1 <= b->y0 && d->y0 >= b->y1 &&
		    (a->x1 - a->x0) * 2 <= bw && (d->x1 - d->x0) * 2 <= bw &&
		    (a->y1 - a->y0) * 2 <= bw && (d->y1 - d->y0) * 2 <= bw)
			return '/';
		return 0;
	}
	if (g->count == 2) {
		const struct comp *a = &c[g->first], *b = a + 1;
		int aw = a->x1 - a->x0, bw = b->x1 - b->x0;

		if (flat(a) && flat(b) && a->y1 <= b->y0 && aw * 5 >= bw * 3 &&
		    bw * 5 >= aw * 3)
			return '=';
		return 0;
	}
	if (g->count != 1)
		return 0;
	if (flat(&c[g->first]) && gh <= 0.25 * H && gw >= 0.25 * H)
		return '-';
	if (gw * 10 < gh * 6 || gw * 10 > gh * 16 || gh < 0.35 * H)
		return 0;
	{
		const struct comp *k = &c[g->first];
		double corners = (density(r, k, 0, 0, 0.2, 0.2) +
		    density(r, k, 0.8, 0, 1, 0.2) + density(r, k, 0, 0.8, 0.2, 1) +
		    density(r, k, 0.8, 0.8, 1, 1)) / 4;
		double row = 0, col = 0;
		int rows_at = 0, col_at = 0;

		/*
		 * + has a row and a column of ink across nearly its whole box,
		 * near the middle; x has neither, but ink in its corners.
		 */
		for (int y = k->y0; y < k->y1; y++) {
			long on = 0;

			for (int x = k->x0; x < k->x1; x++)
				on += r->label[(size_t)y * (size_t)r->w + (size_t)x] == k->label;
			if ((double)on / gw > row) {
				row = (double)on / gw;
				rows_at = y - k->y0;
			}
		}
		for (int x = k->x0; x < k->x1; x++) {
			long on = 0;

			for (int y = k->y0; y < k->y1; y++)
				on += r->label[(size_t)y * (size_t)r->w + (size_t)x] == k->label;
			if ((double)on / gh > col) {
				col = (double)on / gh;
				col_at = x - k->x0;
			}
		}
		if (row >= 0.8 && col >= 0.8 && corners < 0.1 &&
		    rows_at * 4 >= gh && rows_at * 4 <= 3 * gh &&
		    col_at * 4 >= gw && col_at * 4 <= 3 * gw)
			return '+';
		if (corners > 0.15 && row < 0.6 && col < 0.6 &&
		    density(r, k, 0.4, 0, 0.6, 0.15) < 0.15)
			return '*';
	}
	return 0;
}

int
cc_glyph_line(const unsigned char *ink, int wp, int hp, int bx, int by, int bw,
    int bh, struct cc_glyph_item *items, int max)
{
	struct region r = { .ink = ink, .wp = wp };
	struct comp *c = NULL;
	struct glyph *g = NULL;
	int *heights = NULL;
	int nc, ng = 0, ntall = 0, nitems = -1, maxh = 0, pad;
	double top, bottom, H;

	if (!ink || bw <= 0 || bh <= 0 || wp <= 0 || hp <= 0 ||
	    (long)bw * (long)bh > MAX_AREA)
		return -1;
	/* the box Tesseract gives can cut off a ÷'s dots or an = */
	pad = bh / 3 + 1;
	r.ox = bx - pad < 0 ? 0 : bx - pad;
	r.oy = by - pad < 0 ? 0 : by - pad;
	r.w = (bx + bw + pad > wp ? wp : bx + bw + pad) - r.ox;
	r.h = (by + bh + pad > hp ? hp : by + bh + pad) - r.oy;
	if (r.w <= 0 || r.h <= 0 || (long)r.w * (long)r.h > MAX_AREA)
		return -1;
	r.label = calloc((size_t)r.w * (size_t)r.h, sizeof *r.label);
	if (!r.label)
		return -1;
	c = cc_xmalloc(MAX_COMPS * sizeof *c);
	if ((nc = label_components(&r, c, MAX_COMPS)) <= 0)
		goto done;
	/* keep what belongs to this line: centred inside its box, and not
	   reaching the padding's edge (a neighbour line's ascenders) */
	for (int i = 0; i < nc; i++) {
		struct comp *k = &c[i];
		int cy = r.oy + (k->y0 + k->y1) / 2, cx = r.ox + (k->x0 + k->x1) / 2;
		int kw = k->x1 - k->x0, kh = k->y1 - k->y0;

		if (cy < by || cy >= by + bh || cx < bx - pad / 2 || cx >= bx + bw + pad / 2 ||
		    (k->y0 == 0 && r.oy > 0) || (k->y1 == r.h && r.oy + r.h < hp) ||
		    (kw < 2 && kh < 2) || k->n < 3)
			k->dropped = 1;
		else if (kh > maxh)
			maxh = kh;
	}
	if (!maxh)
		goto done;
	/* digit height: the median top and bottom of the tall components */
	heights = cc_xmalloc((size_t)nc * 2 * sizeof *heights);
	for (int i = 0; i < nc; i++)
		if (!c[i].dropped && c[i].y1 - c[i].y0 >= maxh / 2)
			heights[ntall++] = c[i].y0;
	qsort(heights, (size_t)ntall, sizeof *heights, cmp_int);
	top = heights[ntall / 2];
	ntall = 0;
	for (int i = 0; i < nc; i++)
		if (!c[i].dropped && c[i].y1 - c[i].y0 >= maxh / 2)
			heights[ntall++] = c[i].y1;
	qsort(heights, (size_t)ntall, sizeof *heights, cmp_int);
	bottom = heights[ntall / 2];
	H = bottom - top;
	if (H < 4)
		goto done;
	/* specks: smaller than a tenth of the digit height (÷'s dots are a
	   fifth) */
	for (int i = 0; i < nc; i++)
		if (!c[i].dropped && c[i].x1 - c[i].x0 < 0.1 * H && c[i].y1 - c[i].y0 < 0.1 * H)
			c[i].dropped = 1;
	{
		int k = 0;

		for (int i = 0; i < nc; i++)
			if (!c[i].dropped)
				c[k++] = c[i];
		nc = k;
	}
	if (!nc)
		goto done;
	/* glyphs: components that overlap left to right by half the narrower */
	qsort(c, (size_t)nc, sizeof *c, cmp_comp_x);
	g = cc_xmalloc((size_t)nc * sizeof *g);
	for (int i = 0; i < nc; i++) {
		struct comp *k = &c[i];
		int kw = k->x1 - k->x0;

		if (ng) {
			struct glyph *p = &g[ng - 1];
			int ov = (k->x1 < p->x1 ? k->x1 : p->x1) - (k->x0 > p->x0 ? k->x0 : p->x0);
			int pw = p->x1 - p->x0;

			if (ov * 2 >= (kw < pw ? kw : pw)) {
				if (k->x0 < p->x0) p->x0 = k->x0;
				if (k->y0 < p->y0) p->y0 = k->y0;
				if (k->x1 > p->x1) p->x1 = k->x1;
				if (k->y1 > p->y1) p->y1 = k->y1;
				p->count++;
				k->glyph = ng - 1;
				continue;
			}
		}
		g[ng] = (struct glyph){ k->x0, k->y0, k->x1, k->y1, 0, 1, 0 };
		k->glyph = ng++;
	}
	/* each glyph's components together, top to bottom */
	qsort(c, (size_t)nc, sizeof *c, cmp_comp_glyph_y);
	for (int i = nc - 1; i >= 0; i--)
		g[c[i].glyph].first = i;
	for (int i = 0; i < ng; i++)
		g[i].op = classify(&r, &g[i], c, top, bottom);
	/* items: operators, and runs of other glyphs split at wide gaps */
	nitems = 0;
	for (int i = 0; i < ng; i++) {
		struct cc_glyph_item *it;

		if (!g[i].op && nitems && items[nitems - 1].kind == CC_GLYPH_RUN &&
		    (g[i].x0 + r.ox) - items[nitems - 1].x1 < 0.6 * H) {
			it = &items[nitems - 1];
			if (g[i].y0 + r.oy < it->y0) it->y0 = g[i].y0 + r.oy;
			if (g[i].y1 + r.oy > it->y1) it->y1 = g[i].y1 + r.oy;
			it->x1 = g[i].x1 + r.ox;
			continue;
		}
		if (nitems >= max) {
			nitems = -1;
			break;
		}
		it = &items[nitems++];
		*it = (struct cc_glyph_item){ g[i].op ? CC_GLYPH_OP : CC_GLYPH_RUN,
			g[i].op, g[i].x0 + r.ox, g[i].y0 + r.oy, g[i].x1 + r.ox,
			g[i].y1 + r.oy };
	}
done:
	free(heights);
	free(g);
	free(c);
	free(r.label);
	return nitems;
}
