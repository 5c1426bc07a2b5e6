// The gallery's DOM: one card per shot, built once and updated in place (a re-render would lose the
// focus and a half-typed instruction).
import { describeSize, describeStatus, isFinal, type Shot, srcsetOf } from './model';

/** What a card's controls ask for; main.ts turns each into a tool call through the host. */
export interface CardActions {
  act(shot: Shot, action: 'vary' | 'upscale'): void;
  refine(shot: Shot, instruction: string): Promise<boolean>;
  open(shot: Shot): void;
}

interface Card {
  root: HTMLElement;
  frame: HTMLElement;
  image?: HTMLImageElement;
  bar: HTMLProgressElement;
  status: HTMLElement;
  size: HTMLElement;
  controls: HTMLElement;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<'className' | 'id' | 'textContent' | 'type', string>> = {},
  ...children: Node[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

const safeId = (key: string) => key.replace(/[^A-Za-z0-9_-]/g, '-');

export class GalleryView {
  private readonly cards = new Map<string, Card>();

  constructor(
    private readonly list: HTMLElement,
    private readonly actions: CardActions,
  ) {}

  /** Adds the shots not shown yet (after `afterKey`'s card, or at the end) and updates the others. */
  show(shots: readonly Shot[], afterKey?: string): void {
    let anchor = afterKey ? this.cards.get(afterKey)?.root : undefined;
    for (const shot of shots) {
      let card = this.cards.get(shot.key);
      if (!card) {
        card = this.build(shot);
        this.cards.set(shot.key, card);
        if (anchor) anchor.after(card.root);
        else this.list.append(card.root);
        anchor = card.root;
      }
      this.update(card, shot);
    }
  }

  private build(shot: Shot): Card {
    const id = safeId(shot.key);
    const title = element('h2', { className: 'title', id: `title-${id}`, textContent: shot.label });
    const bar = element('progress', { className: 'bar' });
    bar.max = 100;
    bar.setAttribute('aria-labelledby', `title-${id}`);
    const status = element('p', { className: 'status' });
    const frame = element('div', { className: 'frame placeholder' }, bar);
    const size = element('p', { className: 'size' });
    const controls = element('div', { className: 'controls' });
    const root = element('article', { className: 'shot' }, title, frame, status, size, controls);
    root.setAttribute('aria-labelledby', `title-${id}`);
    return { root, frame, bar, status, size, controls };
  }

  private update(card: Card, shot: Shot): void {
    card.root.dataset.status = shot.status;
    card.bar.value = shot.progress;
    card.status.textContent = describeStatus(shot);
    card.status.hidden = shot.status === 'completed';
    if (shot.status === 'completed' && shot.imageUrl && !card.image)
      this.showImage(card, shot, shot.imageUrl);
    card.size.textContent = describeSize(shot);
    if (isFinal(shot) && card.controls.childElementCount === 0) this.buildControls(card, shot);
  }

  private showImage(card: Card, shot: Shot, url: string): void {
    const image = element('img');
    image.alt =
      shot.prompt && !shot.label.includes(shot.prompt) ? `${shot.label}: ${shot.prompt}` : shot.label;
    image.decoding = 'async';
    const srcset = srcsetOf(shot);
    if (srcset) {
      image.srcset = srcset;
      image.sizes = '100vw';
    }
    if (shot.width && shot.height) {
      image.width = shot.width;
      image.height = shot.height;
    }
    image.src = url;
    // A history item carries no size: the image says it once loaded.
    image.addEventListener('load', () => {
      if (!shot.width)
        card.size.textContent = describeSize({
          ...shot,
          width: image.naturalWidth,
          height: image.naturalHeight,
        });
    });
    image.addEventListener('error', () => {
      card.status.hidden = false;
      card.status.textContent = 'The host did not let the image load here; open it instead.';
    });
    card.frame.replaceChildren(image);
    card.frame.classList.remove('placeholder');
    card.image = image;
  }

  private buildControls(card: Card, shot: Shot): void {
    const target = shot.taskId ?? shot.generationId;
    if (shot.status !== 'completed' || !target) return;
    const describedBy = card.root.getAttribute('aria-labelledby') ?? '';
    const button = (text: string, onClick: () => void) => {
      const node = element('button', { type: 'button', textContent: text });
      node.setAttribute('aria-describedby', describedBy);
      node.addEventListener('click', onClick);
      return node;
    };
    const inputId = `refine-${safeId(shot.key)}`;
    const input = element('input', { id: inputId, type: 'text' });
    input.placeholder = 'e.g. make the sky darker';
    input.maxLength = 8000;
    const send = () => {
      const instruction = input.value.trim();
      if (instruction === '') {
        input.focus();
        return;
      }
      void this.actions.refine(shot, instruction).then((sent) => {
        if (sent) input.value = '';
      });
    };
    // Not a <form>: a host's sandbox may leave out allow-forms, which would drop its submit. Enter in
    // the field and the button do the same.
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.isComposing) {
        event.preventDefault();
        send();
      }
    });
    const label = element('label', { textContent: 'Refine: what to change' });
    label.htmlFor = inputId;
    const refine = element('div', { className: 'refine' }, label, input, button('Refine', send));
    const row = element(
      'div',
      { className: 'buttons' },
      button('Vary', () => this.actions.act(shot, 'vary')),
      button('Upscale ×2', () => this.actions.act(shot, 'upscale')),
      button('Open full size', () => this.actions.open(shot)),
    );
    card.controls.append(row, refine);
  }
}
