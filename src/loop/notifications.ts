import { isToolResultMessage, type Message } from '../common/messages';

export interface JobNotification {
  taskId: string;
  status: 'done' | 'failed' | 'cancelled' | 'timed_out';
  summary: string;
}

export const NOTIFICATION_SUMMARY_CHARS = 500;

/** One `role: "system"` message for all drained notifications, so a burst of jobs costs one message. */
export function notificationMessage(notifications: readonly JobNotification[]): Message {
  const lines = notifications.map(
    (n) => `- Task ${n.taskId}: ${n.status} - ${n.summary.slice(0, NOTIFICATION_SUMMARY_CHARS)}`,
  );
  return {
    role: 'system',
    content: ['<background-notifications>', 'Background task updates:', ...lines, '</background-notifications>'].join(
      '\n',
    ),
  };
}

/**
 * Before a plain user message (the human's question stays last), after a tool_result
 * message (the tool round stays intact); otherwise at the end. Returns a new array.
 */
export function injectNotifications(messages: readonly Message[], notifications: readonly JobNotification[]): Message[] {
  if (notifications.length === 0) return [...messages];
  const note = notificationMessage(notifications);
  const last = messages[messages.length - 1];
  if (last && last.role === 'user' && !isToolResultMessage(last)) {
    return [...messages.slice(0, -1), note, last];
  }
  return [...messages, note];
}
