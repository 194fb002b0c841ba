/**
 * How many cells of a terminal a character takes, as a program that lays
 * out its screen counts them (glibc's `wcwidth` in a UTF-8 locale): two for
 * the wide characters (East Asian Width W and F: CJK, Hangul, kana,
 * fullwidth forms, and the emoji shown as pictures), none for the marks
 * that join the character before them, one for the rest. The table covers
 * the common ranges, not every assignment of the latest Unicode version.
 *
 * @module
 */

/** A range of code points: the first and the last. */
type Range = readonly [number, number];

/** The wide ranges, first and last code point, in order. */
const WIDE: readonly Range[] = [
  [0x1100, 0x115f], // Hangul Jamo (leading consonants)
  [0x231a, 0x231b], // watch, hourglass
  [0x2329, 0x232a], // angle brackets
  [0x23e9, 0x23ec], // media buttons
  [0x23f0, 0x23f0], // alarm clock
  [0x23f3, 0x23f3], // hourglass with sand
  [0x25fd, 0x25fe], // small squares
  [0x2614, 0x2615], // umbrella, hot beverage
  [0x2648, 0x2653], // zodiac
  [0x267f, 0x267f], // wheelchair
  [0x2693, 0x2693], // anchor
  [0x26a1, 0x26a1], // high voltage
  [0x26aa, 0x26ab], // circles
  [0x26bd, 0x26be], // balls
  [0x26c4, 0x26c5], // snowman, sun behind cloud
  [0x26ce, 0x26ce], // Ophiuchus
  [0x26d4, 0x26d4], // no entry
  [0x26ea, 0x26ea], // church
  [0x26f2, 0x26f3], // fountain, flag in hole
  [0x26f5, 0x26f5], // sailboat
  [0x26fa, 0x26fa], // tent
  [0x26fd, 0x26fd], // fuel pump
  [0x2705, 0x2705], // check mark button
  [0x270a, 0x270b], // raised fist and hand
  [0x2728, 0x2728], // sparkles
  [0x274c, 0x274c], // cross mark
  [0x274e, 0x274e], // cross mark button
  [0x2753, 0x2755], // question and exclamation marks
  [0x2757, 0x2757], // exclamation mark
  [0x2795, 0x2797], // plus, minus, divide
  [0x27b0, 0x27b0], // curly loop
  [0x27bf, 0x27bf], // double curly loop
  [0x2b1b, 0x2b1c], // large squares
  [0x2b50, 0x2b50], // star
  [0x2b55, 0x2b55], // hollow red circle
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
  [0x3041, 0x33ff], // kana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed, compatibility
  [0x3400, 0x4dbf], // CJK unified ideographs extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x16fe0, 0x16fe4], // ideographic symbols
  [0x17000, 0x18cff], // Tangut, Khitan
  [0x1b000, 0x1b2ff], // kana supplement and extensions, Nushu
  [0x1f004, 0x1f004], // mahjong tile
  [0x1f0cf, 0x1f0cf], // playing card
  [0x1f18e, 0x1f18e], // AB button
  [0x1f191, 0x1f19a], // squared words
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x1f300, 0x1f320], // weather, landscape
  [0x1f32d, 0x1f335], // food, plants
  [0x1f337, 0x1f37c], // plants, food, drink
  [0x1f37e, 0x1f393], // drink, celebration
  [0x1f3a0, 0x1f3ca], // activities, sport
  [0x1f3cf, 0x1f3d3], // sport
  [0x1f3e0, 0x1f3f0], // buildings
  [0x1f3f4, 0x1f3f4], // black flag
  [0x1f3f8, 0x1f43e], // sport, skin tones, animals
  [0x1f440, 0x1f440], // eyes
  [0x1f442, 0x1f4fc], // people, objects
  [0x1f4ff, 0x1f53d], // objects, symbols
  [0x1f54b, 0x1f54e], // religious places
  [0x1f550, 0x1f567], // clock faces
  [0x1f57a, 0x1f57a], // man dancing
  [0x1f595, 0x1f596], // hands
  [0x1f5a4, 0x1f5a4], // black heart
  [0x1f5fb, 0x1f64f], // places, smileys, gestures
  [0x1f680, 0x1f6c5], // transport
  [0x1f6cc, 0x1f6cc], // person in bed
  [0x1f6d0, 0x1f6d2], // place of worship, shopping cart
  [0x1f6d5, 0x1f6d7], // buildings, transport
  [0x1f6dc, 0x1f6df], // wireless, ring buoy
  [0x1f6eb, 0x1f6ec], // airplanes
  [0x1f6f4, 0x1f6fc], // transport
  [0x1f7e0, 0x1f7eb], // coloured circles and squares
  [0x1f7f0, 0x1f7f0], // heavy equals sign
  [0x1f90c, 0x1f93a], // hands, people
  [0x1f93c, 0x1f945], // sport
  [0x1f947, 0x1f9ff], // medals, animals, food, people
  [0x1fa70, 0x1faff], // objects, symbols
  [0x20000, 0x2fffd], // CJK unified ideographs extensions B to F, compatibility supplement
  [0x30000, 0x3fffd], // CJK unified ideographs extensions G and H
];

/** The ranges that take no cell: combining marks, zero-width joiners and variation selectors. */
const ZERO: readonly Range[] = [
  [0x0300, 0x036f], // combining diacritical marks
  [0x0483, 0x0489], // Cyrillic combining marks
  [0x0591, 0x05bd], // Hebrew points
  [0x0610, 0x061a], // Arabic marks
  [0x064b, 0x065f], // Arabic vowel marks
  [0x0e31, 0x0e31], // Thai
  [0x0e34, 0x0e3a], // Thai
  [0x0e47, 0x0e4e], // Thai
  [0x1160, 0x11ff], // Hangul Jamo (vowels and trailing consonants join the leading one)
  [0x1ab0, 0x1aff], // combining diacritical marks extended
  [0x1dc0, 0x1dff], // combining diacritical marks supplement
  [0x200b, 0x200f], // zero-width space, non-joiner, joiner, direction marks
  [0x2060, 0x2064], // word joiner, invisible operators
  [0x20d0, 0x20ff], // combining marks for symbols
  [0x302a, 0x302f], // ideographic tone marks
  [0x3099, 0x309a], // kana voiced sound marks
  [0xfe00, 0xfe0f], // variation selectors
  [0xfe20, 0xfe2f], // combining half marks
  [0xfeff, 0xfeff], // zero-width no-break space
  [0xe0000, 0xe0fff], // tags and variation selectors supplement
];

/** True when `code` is in one of `ranges` (ordered). */
function inRanges(ranges: readonly Range[], code: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [first, last] = ranges[middle] as Range;
    if (code < first) high = middle - 1;
    else if (code > last) low = middle + 1;
    else return true;
  }
  return false;
}

/**
 * The cells the character `code` (a code point) takes on a terminal: 2 for
 * a wide character, 0 for one that joins the character before it, else 1.
 * Control characters are the caller's to handle (1 here).
 */
export function cellWidth(code: number): 0 | 1 | 2 {
  if (code < 0x300) return 1;
  if (inRanges(ZERO, code)) return 0;
  return inRanges(WIDE, code) ? 2 : 1;
}
