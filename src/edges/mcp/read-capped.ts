/**
 * A response's body, or undefined when it is larger than `maxBytes` (declared or as it arrives:
 * read no further than that). A response without a body reads as empty.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(response.headers.get('content-length') ?? '0') > maxBytes || !response.body) {
    await response.body?.cancel();
    return response.body ? undefined : Buffer.alloc(0);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
