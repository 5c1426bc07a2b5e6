import {
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { StarChannelContext, useStarChannel } from '../curation/star-channel';
import { ImageActionBar, useImageActions } from './action-bar';
import { DeleteConfirm, type LightboxActionHandlers, LightboxActions } from './actions';
import { type Compare, CompareView, useCompare } from './compare';
import { LightboxDetails } from './details';
import { LightboxBar } from './lightbox-bar';
import { useLightboxPosition } from './lightbox-hooks';
import type { LightboxItem, WorkSettings } from './lightbox-items';
import {
  itemHandlers,
  useDeleteConfirm,
  useFocusReturn,
  useItemSettings,
  usePreloadNeighbours,
  useStatus,
} from './lightbox-state';
import { canRefine, RefinePanel, useRefine } from './refine';
import { type CommandHandler, handlerFor, type LightboxCommand } from './shortcuts';
import { ShortcutsDialog } from './shortcuts-dialog';
import { LightboxStage } from './stage';
import { WorkStar } from './work-star';
import './lightbox.css';

const PAN_STEP_PX = 120;
/** How far each arrow pans a zoomed image. */
const PAN: Record<string, [number, number]> = {
  ArrowLeft: [-PAN_STEP_PX, 0],
  ArrowRight: [PAN_STEP_PX, 0],
  ArrowUp: [0, -PAN_STEP_PX],
  ArrowDown: [0, PAN_STEP_PX],
};

export interface LightboxProps {
  /** The page's current list, in its order. */
  items: readonly LightboxItem[];
  /** The item that was opened. */
  startKey: string;
  onClose: () => void;
  /** Loads the list's next page (Saved works, Library): asked for when → passes the last loaded item. */
  loadMore?: (() => void) | undefined;
  hasMore?: boolean | undefined;
  loading?: boolean | undefined;
  /** The list's full length when known (the counter's "of"). */
  total?: number | undefined;
  /** Deletes the item's work (an upload: the upload) once the confirmation is answered; absent: no Delete. */
  onDelete?: ((item: LightboxItem) => Promise<void>) | undefined;
  /** Extra actions for the item shown (the slot a favourite's star goes in). */
  actions?: ((item: LightboxItem) => ReactNode) | undefined;
  /** Opens in compare mode with these items side by side (two to four keys of `items`). */
  compareKeys?: readonly string[] | undefined;
  /** Opens with the Refine field of the start item open (Create's card "Refine"). */
  refineOnOpen?: boolean | undefined;
}

/**
 * One lightbox for Create, Saved works and the Library: the list's images one at a time, ←/→ and
 * swipe, zoom to 100 % and pan, the metadata panel, actions with shortcuts and `?` for their list.
 * A native modal <dialog>: the browser keeps focus inside; Esc closes, and focus goes back to the
 * card of the image shown (the one that opened it when the person did not move).
 */
export function Lightbox(props: LightboxProps) {
  const state = useLightboxState(props);
  const { item, view, deletion, star, ids, dialog } = state;
  if (!item) return null;
  const { onClose, hasMore, total, items, onDelete } = props;
  const handlers = itemHandlers({
    item,
    settings: state.settings,
    say: state.status.say,
    onClose,
    ask: deletion.ask,
    // A version picked in the strip is not the list's: deleting is done from its own list.
    canDelete: onDelete !== undefined && !state.refine.shown,
  });
  const moves = lightboxMoves(state, item);
  const commands = lightboxCommands(state, moves, handlers, item);
  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    // Nested dialogs (the confirmation, the list) and modified keys (Ctrl+C…) keep their own meaning.
    if (view.shortcuts || deletion.confirming || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
    const action = handlerFor(event.key, commands, event.shiftKey);
    if (!action) return;
    event.preventDefault();
    action();
  };
  return (
    <StarChannelContext.Provider value={star}>
      <dialog
        ref={dialog}
        className="lightbox"
        aria-modal="true"
        aria-labelledby={ids.title}
        aria-describedby={ids.counter}
        onKeyDown={onKeyDown}
        onCancel={(event) => {
          // React passes a nested dialog's cancel (Esc in the list of shortcuts) up its tree: not ours.
          if (event.target !== dialog.current) return;
          event.preventDefault();
          onClose();
        }}
        onClick={(event) => {
          if (event.target === dialog.current) onClose();
        }}
      >
        <LightboxBar
          item={item}
          index={state.index}
          count={total ?? items.length}
          hasMore={hasMore}
          totalKnown={total !== undefined}
          loadingMore={state.position.loadingMore}
          ids={ids}
          zoomed={view.zoomed}
          comparing={state.compare.active}
          showDetails={view.showDetails}
          onZoom={() => view.setZoomed(!view.zoomed)}
          onCompare={moves.toggleCompare}
          onDetails={() => view.setShowDetails(!view.showDetails)}
          onShortcuts={() => view.setShortcuts(true)}
          onClose={onClose}
        />
        <LightboxMain state={state} item={item} moves={moves} handlers={handlers} props={props} />
        {view.shortcuts && (
          <ShortcutsDialog
            offered={state.actions.choices.map((choice) => choice.command)}
            onClose={() => view.setShortcuts(false)}
          />
        )}
        {deletion.confirming && (
          <DeleteConfirm
            item={deletion.confirming}
            state={deletion.state}
            onConfirm={deletion.confirm}
            onCancel={deletion.cancel}
          />
        )}
      </dialog>
    </StarChannelContext.Provider>
  );
}

/** Every hook of the lightbox: its place in the list, what is toggled, the status, the deletion, focus. */
function useLightboxState(props: LightboxProps) {
  const { items, onClose, onDelete } = props;
  const dialog = useRef<HTMLDialogElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  const download = useRef<HTMLAnchorElement>(null);
  const ids = { title: useId(), counter: useId(), details: useId() };
  const position = useLightboxPosition(props);
  const { index } = position;
  const compare = useCompare(items, props.compareKeys);
  const view = useViewState();
  const status = useStatus();
  const refine = useRefine(position.item, status.say, props.refineOnOpen === true);
  const item = refine.shown ?? position.item;
  const actions = useImageActions(refine, item, status.say);
  const deletion = useDeleteConfirm(onDelete, status.say);
  const star = useStarChannel();
  useFocusReturn(dialog, item);
  // The list emptied (its last work deleted): nothing left to show.
  useEffect(() => {
    if (items.length === 0) onClose();
  }, [items.length, onClose]);
  const { setZoomed } = view;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new image (key) shows fitted.
  useEffect(() => setZoomed(false), [item?.key]);
  const { settings, known } = useItemSettings(item);
  usePreloadNeighbours(items, index);
  return {
    dialog,
    stage,
    download,
    ids,
    position,
    item,
    index,
    compare,
    view,
    status,
    deletion,
    star,
    settings,
    known,
    refine,
    actions,
  };
}
type LightboxState = ReturnType<typeof useLightboxState>;

/** Moving through the list (and, comparing, through the last pane), saying so at an end. */
function lightboxMoves({ position, compare, status }: LightboxState, item: LightboxItem) {
  const move = (to: number | 'first' | 'last') => {
    if (position.go(to)) return status.clear(); // "This is the last image." no longer holds once the person moved
    status.say(to === -1 || to === 'first' ? 'This is the first image.' : 'This is the last image.');
  };
  /** ← and →: the next image, or in compare mode the next one in the last pane. */
  const step = (delta: 1 | -1) => {
    if (!compare.active) return move(delta);
    if (!compare.move(delta)) status.say('No other image that way.');
  };
  const toggleCompare = () => {
    if (compare.active) compare.stop();
    else if (!compare.start(item.key)) status.say('Compare takes two images.');
  };
  return { move, step, toggleCompare };
}
type LightboxMoves = ReturnType<typeof lightboxMoves>;

/** What each shortcut does for the item shown (the table of keys is ./shortcuts.ts). */
function lightboxCommands(
  { view, compare, stage, download, star, refine, actions }: LightboxState,
  { move, step, toggleCompare }: LightboxMoves,
  handlers: LightboxActionHandlers,
  item: LightboxItem,
): Partial<Record<LightboxCommand, CommandHandler>> {
  return {
    step: view.zoomed && !compare.active ? undefined : (key) => step(key === 'ArrowLeft' ? -1 : 1),
    pan: view.zoomed
      ? (key) => stage.current?.scrollBy({ left: PAN[key]?.[0], top: PAN[key]?.[1] })
      : undefined,
    edge: (key) => move(key === 'Home' ? 'first' : 'last'),
    zoom: () => item.url && view.setZoomed(!view.zoomed),
    compare: toggleCompare,
    details: () => view.setShowDetails(!view.showDetails),
    download: () => download.current?.click(),
    // The star in the actions slot: every work can be starred (Create, Saved works, the Library).
    star: () => star.toggle?.(),
    copyPrompt: handlers.copyPrompt,
    copyLink: handlers.copyLink,
    reuse: handlers.reuse,
    reference: handlers.useAsReference,
    refine: canRefine(item) ? () => refine.setOpen(true) : undefined,
    versions: refine.focusStrip,
    delete: handlers.remove,
    shortcuts: () => view.setShortcuts(true),
    ...actions.commands,
    // Esc (close) is the dialog's own cancel (onCancel).
  };
}

/** The image with its navigation, beside the side panel. */
function LightboxMain({
  state,
  item,
  moves,
  handlers,
  props,
}: {
  state: LightboxState;
  item: LightboxItem;
  moves: LightboxMoves;
  handlers: LightboxActionHandlers;
  props: LightboxProps;
}) {
  const { view, position } = state;
  return (
    <div className={view.showDetails ? 'lightbox-main' : 'lightbox-main no-details'}>
      <LightboxView
        item={item}
        stage={state.stage}
        compare={state.compare}
        zoomed={view.zoomed}
        onZoom={view.setZoomed}
        onSwipe={(direction) => moves.move(direction)}
        onStep={moves.step}
        atStart={position.atStart}
        nextDisabled={position.atEnd && !(props.hasMore && props.loadMore)}
      />
      <LightboxSide
        item={item}
        handlers={handlers}
        download={state.download}
        extra={
          props.actions ? (
            props.actions(item)
          ) : item.workId ? (
            <WorkStar key={item.workId} workId={item.workId} />
          ) : null
        }
        status={state.status.status}
        refine={
          <>
            <ImageActionBar actions={state.actions} />
            <RefinePanel refine={state.refine} item={item} settings={state.settings} />
          </>
        }
        details={
          view.showDetails
            ? { id: state.ids.details, settings: state.settings, pending: !state.known }
            : undefined
        }
      />
    </div>
  );
}

/** What the person toggles: zoom, the details panel, the list of shortcuts. */
function useViewState() {
  const [zoomed, setZoomed] = useState(false);
  const [showDetails, setShowDetails] = useState(true);
  const [shortcuts, setShortcuts] = useState(false);
  return { zoomed, setZoomed, showDetails, setShowDetails, shortcuts, setShortcuts };
}

/** The image (or the compare view) and the previous / next buttons over it. */
function LightboxView({
  item,
  stage,
  compare,
  zoomed,
  onZoom,
  onSwipe,
  onStep,
  atStart,
  nextDisabled,
}: {
  item: LightboxItem;
  stage: RefObject<HTMLDivElement | null>;
  compare: Compare;
  zoomed: boolean;
  onZoom: (zoomed: boolean) => void;
  onSwipe: (direction: 1 | -1) => void;
  onStep: (delta: 1 | -1) => void;
  atStart: boolean;
  nextDisabled: boolean;
}) {
  return (
    <div className="lightbox-view">
      {compare.active ? (
        <CompareView compare={compare} />
      ) : (
        <LightboxStage item={item} stage={stage} zoomed={zoomed} onZoom={onZoom} onSwipe={onSwipe} />
      )}
      <button
        type="button"
        className="lightbox-nav previous"
        onClick={() => onStep(-1)}
        aria-label="Previous image"
        aria-disabled={atStart}
      >
        ‹
      </button>
      <button
        type="button"
        className="lightbox-nav next"
        onClick={() => onStep(1)}
        aria-label="Next image"
        data-autofocus
        aria-disabled={nextDisabled}
      >
        ›
      </button>
    </div>
  );
}

/** The side panel: the actions, the status line, the details. */
function LightboxSide({
  item,
  handlers,
  download,
  extra,
  status,
  refine,
  details,
}: {
  item: LightboxItem;
  handlers: LightboxActionHandlers;
  download: RefObject<HTMLAnchorElement | null>;
  extra: ReactNode;
  status: string;
  refine: ReactNode;
  details: { id: string; settings: WorkSettings | undefined; pending: boolean } | undefined;
}) {
  return (
    <div className="lightbox-side">
      <LightboxActions item={item} handlers={handlers} download={download} extra={extra} />
      {item.kind === 'result' && refine}
      <p className="lightbox-status" aria-live="polite">
        {status}
      </p>
      {details && (
        <div id={details.id}>
          <LightboxDetails item={item} settings={details.settings} pending={details.pending} />
        </div>
      )}
    </div>
  );
}
