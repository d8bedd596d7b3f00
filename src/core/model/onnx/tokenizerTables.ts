/**
 * A tokenizer that keeps only the tables it encodes and decodes with. @huggingface/tokenizers
 * (0.2) holds on to everything it was built from: the parsed tokenizer.json it was given (the
 * vocabulary as an object and the merges as strings, a third time each) and the merges as pairs
 * beside the rank map it builds from them. On the default model (151,646 tokens, 151,387 merges)
 * those copies are about 26 MB of a 59 MB heap, held for the life of the model.
 */
import { Tokenizer } from '@huggingface/tokenizers';

/**
 * Builds the tokenizer from `json` (a tokenizer.json this caller parsed and owns) and drops the
 * construction copies. The tables used afterwards (token→id map, id→token array, the BPE rank map)
 * stay, so encoding and decoding are unchanged.
 */
export function loadCompactTokenizer(
  json: Record<string, unknown>,
  config: Record<string, unknown>,
): Tokenizer {
  const tokenizer = new Tokenizer(json, config);
  const model = json.model as Record<string, unknown> | undefined;
  if (model && typeof model === 'object') {
    // The library read these into its own maps in the constructor and never reads them again.
    delete model.vocab;
    delete model.merges;
  }
  const built = (tokenizer as unknown as { model?: Record<string, unknown> }).model;
  // BPE keeps `merges` only to have built `bpe_ranks` from it; a later release that reads it
  // again would find it gone, so it is dropped only beside the rank map it fed.
  if (built && built.bpe_ranks instanceof Map && Array.isArray(built.merges)) delete built.merges;
  return tokenizer;
}
