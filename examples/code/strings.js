// Sample functions for "Reason & generate tests" (click the CodeLens above a function).

/** Collapse runs of whitespace into single spaces and trim both ends. */
function normalizeSpaces(text) {
  return text.replace(/\s+/g, ' ').trim();
}

/** Count the words of a text; a word is a maximal run of letters or digits. */
const countWords = (text) => (text.match(/[\p{L}\p{N}]+/gu) ?? []).length;

module.exports = { normalizeSpaces, countWords };
