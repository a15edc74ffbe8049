/*
 * cc_glyph.h: the printed symbols of an arithmetic line, told apart by
 * their shape.
 *
 * Tesseract's jpn and eng models (Debian's tesseract-ocr-jpn/-eng) have
 * no × and no ÷ in their character sets, and read a lone + as 4 or 十,
 * − as 一 or ー: the very symbols an arithmetic problem turns on.  A
 * printed operator is a simple shape, though, so this module finds the
 * glyphs of a line in the binarised page (connected components, grouped
 * when they stand one above the other) and names the operators by
 * geometry:
 *   ÷  three parts: a dot, a bar, a dot, stacked;
 *   =  two bars of about the same width, stacked;
 *   −  one bar, in the middle of the line's digit height;
 *   +  one part, about square, with a row and a column of ink across
 *      nearly all of it near its middle, and no ink in its corners;
 *   ×  one part, about square, with ink in its corners, no such row or
 *      column, and none at the middle of its top edge;
 *   □  (a box to fill) one tall square part, hollow, with ink in its
 *      corners and along its edges.
 * Everything else (digits, parentheses, letters, boxes) is grouped into
 * runs separated by the operators and by wide gaps; the caller reads
 * each run with Tesseract restricted to digits.
 *
 * Owns: nothing beyond a call.  Borrows: the bitmap it is given.
 */
#ifndef CC_GLYPH_H
#define CC_GLYPH_H

enum cc_glyph_kind {
	CC_GLYPH_RUN,		/* glyphs to read (digits, a problem number) */
	CC_GLYPH_OP,		/* an operator, =, or b for a box to fill */
};

struct cc_glyph_item {
	enum cc_glyph_kind kind;
	char op;		/* + - * / = b for CC_GLYPH_OP */
	int x0, y0, x1, y1;	/* page coordinates, [x0, x1) x [y0, y1) */
};

/*
 * Split the line in box (x, y, w, h) of the w_page x h_page bitmap ink
 * (1 = ink) into at most max items, left to right.  Returns their
 * number, or -1 when the line has no clear digit height (no ink, a box
 * too large to look at).
 */
int cc_glyph_line(const unsigned char *ink, int w_page, int h_page,
	int x, int y, int w, int h, struct cc_glyph_item *items, int max);

#endif
