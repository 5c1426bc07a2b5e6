import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPublicUrls } from './public-urls.js';

const urls = createPublicUrls('https://atelier.example');

test('a blob key and its public URL map both ways', () => {
  const url = urls.urlOf('results/task_1.png');
  assert.equal(url, 'https://atelier.example/files/results/task_1.png');
  assert.equal(urls.keyOf(url), 'results/task_1.png');
  assert.equal(urls.keyOf('https://atelier.example/files/uploads/a_b-c.webp'), 'uploads/a_b-c.webp');
});

test('foreign URLs and malformed keys under /files/ map to no key', () => {
  assert.equal(urls.keyOf('https://elsewhere.example/files/results/task_1.png'), undefined);
  assert.equal(urls.keyOf('https://atelier.example/other/results/task_1.png'), undefined);
  for (const key of ['../secret.png', 'results/../../x.png', '/etc/passwd', 'results/task_1.txt', '']) {
    assert.equal(urls.keyOf(`https://atelier.example/files/${key}`), undefined, key);
  }
});
