// Incremental decoding for generation: tokens arrive one at a time and a token may end in the middle
// of a multi-byte UTF-8 character (a byte-tokenizer id is one byte; a Qwen3 token may hold half an
// emoji). push() returns only complete characters; the rest waits for the next token or flush().

import type { Tokenizer } from './types';

export class StreamDecoder {
  // ignoreBOM: a leading U+FEFF is text the model wrote, not a byte-order mark to drop.
  private decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

  constructor(private readonly tokenizer: Tokenizer) {}

  /** Adds token ids; returns the text completed by them (possibly ""). Invalid bytes become U+FFFD. */
  push(ids: number | readonly number[]): string {
    let out = '';
    for (const id of typeof ids === 'number' ? [ids] : ids) {
      out += this.decoder.decode(this.tokenizer.tokenBytes(id), { stream: true });
    }
    return out;
  }

  /** Ends the stream: bytes of an unfinished character come out as U+FFFD. The decoder is then reset. */
  flush(): string {
    const out = this.decoder.decode();
    this.decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
    return out;
  }
}
