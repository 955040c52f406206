// The run page's live part: the conversation goes on from the offset the page was rendered at.
// Every frame is HTML the server escaped; this script only places it (no eval, no inline code).
(function () {
  'use strict';
  var log = document.getElementById('log');
  var live = document.getElementById('live');
  var pending = document.getElementById('pending');
  // After an answer the page is the POST's response: its address becomes the run's own, so a reload reads, never answers again.
  if (log && log.dataset.page && window.history && window.location.pathname !== log.dataset.page) window.history.replaceState(null, '', log.dataset.page);
  if (!log || log.dataset.open !== 'yes' || !window.EventSource) return;
  var source = new EventSource(log.dataset.events);
  function find(selector) {
    var parts = selector.split(' ');
    var el = document.getElementById(parts[0]);
    return el && parts[1] ? el.querySelector(parts[1]) : el;
  }
  source.onmessage = function (message) {
    var frame = JSON.parse(message.data);
    if (typeof frame.answer === 'string') {
      var texts = log.querySelectorAll('.text');
      var last = texts[texts.length - 1];
      if (last && !last.closest('.final') && last.textContent.trim() === frame.answer) last.remove();
    }
    var target = frame.into && find(frame.into);
    if (target && frame.replace) target.outerHTML = frame.html;
    else if (target) target.insertAdjacentHTML('beforeend', frame.html);
    else log.insertAdjacentHTML('beforeend', frame.block);
    if (frame.card && pending) pending.insertAdjacentHTML('beforeend', frame.card);
    if (frame.closes) {
      var card = document.getElementById(frame.closes);
      if (card) card.remove();
    }
    live.textContent = 'live · event ' + message.lastEventId;
  };
  source.addEventListener('end', function () {
    source.close();
    live.textContent = 'the run has ended: reload for its final state';
  });
  source.addEventListener('problem', function (message) {
    live.textContent = 'the live view stopped: ' + JSON.parse(message.data).message;
  });
  source.onerror = function () {
    if (source.readyState !== EventSource.CLOSED) live.textContent = 'reconnecting…';
  };
})();
