// fontkit (the font engine pdfkit embeds fonts with) ships no type declarations: the part of its
// documented API this service uses (README: fontkit.openSync, font.hasGlyphForCodePoint).
declare module 'fontkit' {
  export interface Font {
    postscriptName: string;
    familyName: string;
    /** Whether the font's character map has a glyph for the code point. */
    hasGlyphForCodePoint(codePoint: number): boolean;
  }
  /** Opens a font file; a collection (TTC) gives the font named by `postscriptName`. */
  export function openSync(filename: string, postscriptName?: string): Font;
}
