import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DownloadFile } from '../read-models/index.js';
import { entryNames, slugOf, zipName } from './zip-download.js';

const file = (over: Partial<DownloadFile>): DownloadFile => ({
  assetId: 'ast_1',
  blobKey: 'results/tsk_1.png',
  url: 'http://x/files/results/tsk_1.png',
  contentType: 'image/png',
  bytes: 1,
  width: 1,
  height: 1,
  createdAt: 0,
  generationId: 'gen_1',
  prompt: 'a fox',
  model: 'm',
  source: 'api',
  originalName: null,
  request: null,
  ...over,
});

describe('ZIP entry names', () => {
  test('a prompt becomes ASCII words joined by "-", accents dropped, at most 60 characters at a word', () => {
    assert.equal(slugOf('Crème Brûlée — on a TABLE, 4K!'), 'creme-brulee-on-a-table-4k');
    const long = slugOf('word '.repeat(40));
    assert.ok(long.length <= 60 && !long.endsWith('-'));
    assert.equal(long, Array.from({ length: 12 }, () => 'word').join('-'));
    assert.equal(slugOf('x'.repeat(100)), 'x'.repeat(60));
    assert.equal(slugOf('日本語 only'), 'only');
    assert.equal(slugOf('🎨🎨'), '');
  });

  test('names are unique ignoring case, keep their extension, and never take metadata.json', () => {
    const names = entryNames([
      file({ prompt: 'A Fox' }),
      file({ prompt: 'a fox' }),
      file({ prompt: 'a fox', contentType: 'image/jpeg' }),
      file({ prompt: '🎨' }),
      file({ prompt: null, originalName: 'Holiday Photo.JPG', source: 'upload', contentType: 'image/jpeg' }),
      file({ prompt: null, originalName: null, source: 'upload', contentType: 'image/webp' }),
      file({ prompt: 'metadata', contentType: 'image/png' }),
    ]);
    assert.deepEqual(names, [
      'a-fox.png',
      'a-fox-2.png',
      'a-fox.jpg',
      'image.png',
      'holiday-photo.jpg',
      'upload.webp',
      'metadata.png',
    ]);
  });

  test("the archive's name says the day and how many files", () => {
    assert.equal(zipName(Date.UTC(2026, 10, 25, 23), 1), 'atelier-2026-11-25-1-file.zip');
    assert.equal(zipName(Date.UTC(2026, 0, 2), 12), 'atelier-2026-01-02-12-files.zip');
  });
});
