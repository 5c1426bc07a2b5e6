import yauzl from 'yauzl';

/** One entry of a ZIP: its name, its bytes and how it was stored (0: stored, 8: deflated). */
export interface Entry {
  name: string;
  data: Buffer;
  compressionMethod: number;
}

/** Every entry of a ZIP, in order, with its bytes (yauzl checks each CRC as it reads). */
export function readZip(zip: Buffer): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error || !file) return reject(error);
      const entries: Entry[] = [];
      file.on('error', reject);
      file.on('end', () => resolve(entries));
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (openError, stream) => {
          if (openError || !stream) return reject(openError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.push({
              name: entry.fileName,
              data: Buffer.concat(chunks),
              compressionMethod: entry.compressionMethod,
            });
            file.readEntry();
          });
        });
      });
      file.readEntry();
    });
  });
}
