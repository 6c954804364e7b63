;;; llm-edit.el --- Apply LLM edit payloads through llm-edit-lsp and eglot  -*- lexical-binding: t; -*-

;; Author: llm-edit-lsp authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, convenience, languages
;; SPDX-License-Identifier: MIT OR Apache-2.0

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Turns what an LLM wrote (SEARCH/REPLACE blocks, patches, JSON tool
;; calls, chat code blocks naming a file, ...) into precise edits of your
;; buffers, all or nothing, with the language server `llm-edit-lsp'
;; driven by eglot.
;;
;;   (add-to-list 'load-path "/path/to/llm-edit-lsp/editors/emacs")
;;   (require 'llm-edit)
;;   (llm-edit-mode 1)   ; registers the server with eglot, shows the lighter
;;
;; Then `M-x eglot' in a markdown/text buffer of the project (or in a
;; buffer of a mode listed in `llm-edit-major-modes'), and:
;;
;; - `llm-edit-apply-clipboard', `llm-edit-apply-region',
;;   `llm-edit-apply-buffer': apply the payload; the echo area says
;;   "Applied N edits to M files" or the server's precise refusal;
;; - `llm-edit-preview': the unified diff in a `diff-mode' buffer
;;   (C-c C-c applies, q quits);
;; - `llm-edit-retry-prompt': the text to send back to the LLM when
;;   something failed, on the kill ring;
;; - `llm-edit-capture-context', `llm-edit-release-context',
;;   `llm-edit-status': the snapshot of what the LLM saw, so that your
;;   own changes made meanwhile are merged (the lighter shows "~M:N" when N
;;   files changed on both sides).
;;
;; See docs/editors.md of llm-edit-lsp.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)
(require 'project)
(require 'diff)
(require 'diff-mode)
(require 'url-util)

(defgroup llm-edit nil
  "Apply LLM edit payloads with the llm-edit-lsp language server."
  :group 'tools
  :prefix "llm-edit-")

(defcustom llm-edit-server-program "llm-edit-lsp"
  "The llm-edit-lsp executable: a name found in variable `exec-path', or a path."
  :type 'string)

(defcustom llm-edit-server-args '("lsp")
  "Arguments of `llm-edit-server-program'."
  :type '(repeat string))

(defcustom llm-edit-major-modes '(markdown-mode gfm-mode text-mode)
  "Major modes whose buffers eglot manages with llm-edit-lsp.
LLM responses are pasted into buffers of these modes.  eglot runs one
server per major mode, so add a programming mode here only when it has
no other language server you want (then llm-edit-lsp sees your unsaved
changes there, which `~M' merging needs).  Takes effect when
`llm-edit-mode' is turned on."
  :type '(repeat symbol))

(defcustom llm-edit-match-mode 'tolerant
  "How payload anchors are matched (the server's `matchMode')."
  :type '(choice (const tolerant) (const exact)))

(defcustom llm-edit-fuzzy-threshold nil
  "Similarity in (0, 1) enabling the fuzzy matching pass, or nil (off)."
  :type '(choice (const :tag "Off" nil) number))

(defcustom llm-edit-partial nil
  "Non-nil: apply the edits that resolved even when others failed."
  :type 'boolean)

(defcustom llm-edit-on-conflict 'merge
  "What to do with a file you changed since the context was captured (`~M')."
  :type '(choice (const merge) (const refuse) (const overwrite)))

(defcustom llm-edit-deadline nil
  "Seconds one payload may take to resolve, or nil for the server's default."
  :type '(choice (const :tag "Server default" nil) number))

(defcustom llm-edit-request-timeout 30
  "Seconds to wait for the server to answer a command."
  :type 'number)

(defcustom llm-edit-lighter " LLM"
  "Mode-line lighter of `llm-edit-mode'; \"~M:N\" is appended when N > 0."
  :type 'string)

(defface llm-edit-conflict-face '((t :inherit warning))
  "Face of the \"~M:N\" count in the mode line.")


;;; The server

;; Known at compile time too, for `cl-typep'.
(eval-and-compile
(defclass llm-edit-server (eglot-lsp-server)
  ((root :initform nil :accessor llm-edit--root
         :documentation "The workspace root the server runs in.")
   (message :initform nil :accessor llm-edit--last-message
            :documentation "The last `window/showMessage' text.")
   (status :initform nil :accessor llm-edit--status
           :documentation "Alist (CONTEXT-ID . FILES) of `llm-edit/status'."))
  :documentation "An eglot connection to llm-edit-lsp."))

(defvar llm-edit--servers nil
  "The llm-edit servers started, newest first (dead ones are skipped).")

(cl-defmethod initialize-instance :after ((server llm-edit-server) &rest _)
  "Record SERVER and its root (eglot connects from the project root)."
  (setf (llm-edit--root server) (file-name-as-directory
                                 (expand-file-name default-directory)))
  (push server llm-edit--servers))

(defun llm-edit--settings ()
  "The server settings from the customization options."
  (append (list :matchMode (symbol-name llm-edit-match-mode)
                :partial (if llm-edit-partial t :json-false)
                :onConflict (symbol-name llm-edit-on-conflict))
          (and llm-edit-fuzzy-threshold
               (list :fuzzyThreshold llm-edit-fuzzy-threshold))
          (and llm-edit-deadline (list :deadline llm-edit-deadline))))

(cl-defmethod eglot-initialization-options ((_server llm-edit-server))
  "The llm-edit settings, sent at `initialize'."
  (list :llmEdit (llm-edit--settings)))

(defun llm-edit--contact (&rest _)
  "The eglot contact of llm-edit-lsp (eglot may pass INTERACTIVE and PROJECT)."
  (append (list 'llm-edit-server llm-edit-server-program) llm-edit-server-args))

(defvar llm-edit--registered nil
  "The `eglot-server-programs' entry added by `llm-edit-mode'.")

(defun llm-edit--register ()
  "Put llm-edit-lsp first in `eglot-server-programs' for `llm-edit-major-modes'."
  (llm-edit--unregister)
  (setq llm-edit--registered (cons llm-edit-major-modes #'llm-edit--contact))
  (push llm-edit--registered eglot-server-programs))

(defun llm-edit--unregister ()
  "Remove the entry `llm-edit--register' added."
  (when llm-edit--registered
    (setq eglot-server-programs (delq llm-edit--registered eglot-server-programs))
    (setq llm-edit--registered nil)))

(defun llm-edit--live-servers ()
  "The running llm-edit servers."
  (setq llm-edit--servers (cl-remove-if-not #'jsonrpc-running-p llm-edit--servers)))

(defun llm-edit--server ()
  "The llm-edit server for the current buffer, or a `user-error'.
The buffer's own eglot server when it is llm-edit-lsp, else the running
llm-edit server whose root holds the buffer's directory (the only one
when just one runs)."
  (let ((own (and (bound-and-true-p eglot--managed-mode) (eglot-current-server)))
        (live (llm-edit--live-servers))
        (here (expand-file-name default-directory)))
    (or (and (cl-typep own 'llm-edit-server) (jsonrpc-running-p own) own)
        (cl-find-if (lambda (s) (string-prefix-p (llm-edit--root s) here)) live)
        (and (= (length live) 1) (car live))
        (user-error (if live
                        "llm-edit: several llm-edit-lsp servers run, none for %s; run the command from a buffer of the project"
                      "llm-edit: no llm-edit-lsp server runs for %s; M-x eglot in a markdown or text buffer of the project (with `llm-edit-mode' on)")
                    here))))

(defun llm-edit--flush-changes (server)
  "Send SERVER what was typed in its buffers and not sent yet.
eglot sends `didChange' from an idle timer; a command run right after
typing would otherwise be planned on the text before it."
  (when (fboundp 'eglot--signal-textDocument/didChange)
    (dolist (buffer (buffer-list))
      (with-current-buffer buffer
        (when (and (bound-and-true-p eglot--managed-mode)
                   (eq (eglot-current-server) server))
          (eglot--signal-textDocument/didChange))))))

(defun llm-edit--request (server command argument)
  "Run llm-edit COMMAND (a string) on SERVER with ARGUMENT (a plist).
Returns the result plist; a JSON-RPC error becomes a `user-error' with
the server's message.

The request is asynchronous and waited for here: `jsonrpc-request' leaves
a message that came in after the answer unread until more output arrives
\(Emacs 28's jsonrpc leaves its process filter at the answer), and the
server's \"Applied N edits\" may come just after it."
  (llm-edit--flush-changes server)
  (setf (llm-edit--last-message server) nil)
  (let* ((outcome nil)
         (deadline (+ (float-time) llm-edit-request-timeout)))
    (jsonrpc-async-request
     server :workspace/executeCommand
     (list :command command :arguments (vector argument))
     :success-fn (lambda (result) (setq outcome (list 'done result)))
     :error-fn (lambda (error) (setq outcome (list 'error (plist-get error :message))))
     :timeout-fn (lambda () (setq outcome (list 'error "the server did not answer")))
     :timeout llm-edit-request-timeout)
    (while (and (not outcome) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (pcase outcome
      (`(done ,result) result)
      (`(error ,why) (user-error "llm-edit: %s: %s" command why))
      (_ (user-error "llm-edit: %s: the server did not answer in %s s"
                     command llm-edit-request-timeout)))))

(defun llm-edit--run-args (payload)
  "The arguments of `llm-edit.apply' and friends for PAYLOAD."
  (list :payload payload :options (llm-edit--settings)))


;;; Notifications and requests from the server

(cl-defmethod eglot-handle-notification
  ((server llm-edit-server) (_method (eql 'llm-edit/status)) &key id files &allow-other-keys)
  "Record SERVER's `llm-edit/status' FILES of context ID for the lighter."
  (setf (alist-get id (llm-edit--status server) nil nil #'equal) files)
  (force-mode-line-update t))

(cl-defmethod eglot-handle-notification :before
  ((server llm-edit-server) (_method (eql 'window/showMessage)) &key message &allow-other-keys)
  "Keep SERVER's MESSAGE: the outcome of the command running."
  (setf (llm-edit--last-message server) message))

(cl-defmethod eglot-handle-request :before
  ((_server llm-edit-server) (_method (eql 'workspace/applyEdit)) &key edit &allow-other-keys)
  "Refuse EDIT when the server cannot see the text of a target buffer.
A modified buffer that this server does not manage differs from the disk
text the edit was planned on: its ranges would land in the wrong place."
  (dolist (path (llm-edit--edit-paths edit))
    (let ((buffer (find-buffer-visiting path)))
      (when (and buffer (buffer-modified-p buffer)
                 (not (with-current-buffer buffer
                        (and (bound-and-true-p eglot--managed-mode)
                             (cl-typep (eglot-current-server) 'llm-edit-server)))))
        (jsonrpc-error "%s has unsaved changes llm-edit-lsp cannot see (its buffer is not managed by the server): save it, or add its mode to `llm-edit-major-modes'"
                       (buffer-name buffer))))))

(defun llm-edit--edit-paths (edit)
  "The local file names of the targets of the WorkspaceEdit EDIT."
  (delete-dups
   (append
    (cl-loop for change across (or (plist-get edit :documentChanges) [])
             for document = (plist-get change :textDocument)
             when document collect (llm-edit--uri-path (plist-get document :uri)))
    (cl-loop for (uri _edits) on (plist-get edit :changes) by #'cddr
             collect (llm-edit--uri-path (substring (symbol-name uri) 1))))))

(defun llm-edit--uri-path (uri)
  "The local file name of the file: URI."
  (let ((path (decode-coding-string
               (url-unhex-string (string-remove-prefix "file://" uri)) 'utf-8)))
    ;; file:///C:/x is C:/x on Windows.
    (if (string-match-p "\\`/[A-Za-z]:" path) (substring path 1) path)))

(defun llm-edit--conflict-count ()
  "How many files are `~M' in the last statuses of the running servers."
  (cl-loop for server in (llm-edit--live-servers)
           sum (cl-loop for (_id . files) in (llm-edit--status server)
                        sum (cl-count-if (lambda (f) (equal (plist-get f :status) "~M"))
                                         files))))

(defun llm-edit--lighter ()
  "The mode-line lighter of `llm-edit-mode'."
  (let ((count (llm-edit--conflict-count)))
    (if (> count 0)
        (concat llm-edit-lighter
                (propertize (format " ~M:%d" count) 'face 'llm-edit-conflict-face
                            'help-echo "Files you and the LLM both changed: M-x llm-edit-status"))
      llm-edit-lighter)))


;;; Outcome messages

(defun llm-edit--errors-summary (errors)
  "One line saying what failed in ERRORS (a vector of EditError)."
  (let ((first (and (> (length errors) 0) (aref errors 0))))
    (if (not first)
        "nothing to apply"
      (concat (plist-get first :message)
              (if (> (length errors) 1)
                  (format " (and %d more)" (1- (length errors)))
                "")))))

(defun llm-edit--report-apply (server result)
  "Echo the outcome of `llm-edit.apply' RESULT from SERVER; return it."
  (let ((shown (llm-edit--last-message server))
        (until (+ (float-time) 0.5)))
    ;; The server sends "Applied N edits to M files" with `window/showMessage'
    ;; beside its answer, in either order: wait a little for it.
    (while (and (eq (plist-get result :applied) t) (not shown) (< (float-time) until))
      (accept-process-output nil 0.02)
      (setq shown (llm-edit--last-message server)))
    (if (eq (plist-get result :applied) t)
        (message "llm-edit: %s" (or shown "applied"))
      (message "llm-edit: nothing applied: %s%s"
               (or (plist-get result :failureReason)
                   (llm-edit--errors-summary (plist-get result :errors)))
               (llm-edit--hint (plist-get result :errors)))))
  result)

(defun llm-edit--hint (errors)
  "What to do next about ERRORS (a vector of EditError), or \"\"."
  (cond ((cl-some (lambda (e) (equal (plist-get e :kind) "conflict")) errors)
         " [on the line, M-x eglot-code-actions: take the LLM's version, keep yours, or both]")
        ((> (length errors) 0)
         " [M-x llm-edit-retry-prompt copies a retry prompt]")
        (t "")))


;;; Applying

(defvar llm-edit--last-payload nil
  "The payload of the last llm-edit command, for `llm-edit-retry-prompt'.")

(defun llm-edit-apply-payload (payload)
  "Apply the LLM edit PAYLOAD (a string); return the server's result plist.
The outcome is echoed: \"Applied N edits to M files\", or why nothing
was applied."
  (let ((server (llm-edit--server)))
    (setq llm-edit--last-payload payload)
    (llm-edit--report-apply
     server (llm-edit--request server "llm-edit.apply" (llm-edit--run-args payload)))))

;;;###autoload
(defun llm-edit-apply-region (beg end)
  "Apply the LLM edit payload between BEG and END (the region)."
  (interactive "r")
  (llm-edit-apply-payload (buffer-substring-no-properties beg end)))

;;;###autoload
(defun llm-edit-apply-buffer ()
  "Apply the LLM edit payload that is the current buffer (an LLM response)."
  (interactive)
  (llm-edit-apply-payload (buffer-substring-no-properties (point-min) (point-max))))

;;;###autoload
(defun llm-edit-apply-clipboard ()
  "Apply the LLM edit payload in the clipboard (the newest kill)."
  (interactive)
  (llm-edit-apply-payload (llm-edit--clipboard)))

(defun llm-edit--clipboard ()
  "The clipboard's text (the newest kill), or a `user-error' when empty."
  (let ((payload (ignore-errors (current-kill 0 t))))
    (unless (and payload (not (string-empty-p payload)))
      (user-error "llm-edit: the clipboard is empty"))
    (substring-no-properties payload)))

(defun llm-edit--payload-here ()
  "The payload of a command run here: the active region, else the buffer."
  (if (use-region-p)
      (buffer-substring-no-properties (region-beginning) (region-end))
    (buffer-substring-no-properties (point-min) (point-max))))


;;; Preview

(defun llm-edit--encoding (server)
  "The position encoding negotiated with SERVER (\"utf-16\" unless said)."
  (or (and (fboundp 'eglot--capabilities)
           (plist-get (eglot--capabilities server) :positionEncoding))
      "utf-16"))

(defun llm-edit--char-units (char encoding)
  "How many code units of ENCODING the character CHAR takes."
  (pcase encoding
    ("utf-32" 1)
    ("utf-8" (cond ((< char #x80) 1) ((< char #x800) 2) ((< char #x10000) 3) (t 4)))
    (_ (if (> char #xFFFF) 2 1))))

(defun llm-edit--position-point (position encoding)
  "The point of the LSP POSITION in the current buffer, in ENCODING units."
  (save-excursion
    (goto-char (point-min))
    (if (> (forward-line (plist-get position :line)) 0)
        (point-max)
      (let ((units 0) (target (plist-get position :character)))
        (while (and (< units target) (not (eolp)))
          (setq units (+ units (llm-edit--char-units (char-after) encoding)))
          (forward-char))
        (point)))))

(defun llm-edit--apply-text-edits (text edits encoding)
  "TEXT with the LSP EDITS (a vector of TextEdit, in ENCODING) made."
  (with-temp-buffer
    (insert text)
    (let* ((index 0)
           (located (cl-loop for edit across edits
                             for range = (plist-get edit :range)
                             collect (list (llm-edit--position-point (plist-get range :start) encoding)
                                           (cl-incf index)
                                           (llm-edit--position-point (plist-get range :end) encoding)
                                           (plist-get edit :newText)))))
      ;; Last first, so earlier positions stay right; of edits starting at
      ;; one place, the later one first, so the earlier one's text comes first.
      (dolist (edit (sort located (lambda (a b) (or (> (car a) (car b))
                                                   (and (= (car a) (car b))
                                                        (> (cadr a) (cadr b)))))))
        (pcase-let ((`(,beg ,_ ,end ,new) edit))
          (delete-region beg end)
          (goto-char beg)
          (insert new))))
    (buffer-string)))

(defun llm-edit--file-text (path)
  "The text of PATH: its buffer's (unsaved edits too), else the disk's."
  (let ((buffer (find-buffer-visiting path)))
    (cond (buffer (with-current-buffer buffer
                    (save-restriction (widen) (buffer-substring-no-properties
                                               (point-min) (point-max)))))
          ((file-exists-p path) (with-temp-buffer
                                  (insert-file-contents path)
                                  (buffer-string)))
          (t ""))))

(defun llm-edit--file-edits (edit)
  "The changes of the WorkspaceEdit EDIT, in order.
Each is (PATH . TEXT-EDITS), or (:op OPERATION PATH [NEW-PATH]) for a
file created, renamed or deleted (OPERATION is a string)."
  (append
   (cl-loop for change across (or (plist-get edit :documentChanges) [])
            for document = (plist-get change :textDocument)
            for kind = (plist-get change :kind)
            if document
            collect (cons (llm-edit--uri-path (plist-get document :uri))
                          (plist-get change :edits))
            else if (equal kind "rename")
            collect (list :op "renames" (llm-edit--uri-path (plist-get change :oldUri))
                          (llm-edit--uri-path (plist-get change :newUri)))
            else if (member kind '("create" "delete"))
            collect (list :op (concat kind "s") (llm-edit--uri-path (plist-get change :uri))))
   (and (not (plist-get edit :documentChanges))
        (cl-loop for (uri edits) on (plist-get edit :changes) by #'cddr
                 collect (cons (llm-edit--uri-path (substring (symbol-name uri) 1))
                               edits)))))

(defun llm-edit--unified-diff (root old new path)
  "The unified diff of OLD to NEW (strings) of PATH, relative to ROOT."
  (let ((name (file-relative-name path root))
        (old-file (make-temp-file "llm-edit-old"))
        (new-file (make-temp-file "llm-edit-new")))
    (unwind-protect
        (let ((coding-system-for-write 'utf-8-unix)
              (coding-system-for-read 'utf-8-unix))
          (write-region old nil old-file nil 'silent)
          (write-region new nil new-file nil 'silent)
          (with-temp-buffer
            (call-process diff-command nil t nil "-u"
                          "--label" (concat "a/" name) "--label" (concat "b/" name)
                          old-file new-file)
            (buffer-string)))
      (delete-file old-file)
      (delete-file new-file))))

(defvar-local llm-edit--preview-payload nil
  "The payload a preview buffer shows.")

(defvar-local llm-edit--preview-server nil
  "The server a preview buffer came from.")

(defvar llm-edit-preview-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'llm-edit-preview-apply)
    (define-key map (kbd "q") #'llm-edit-preview-quit)
    map)
  "Keys of an llm-edit preview buffer.")

(define-minor-mode llm-edit-preview-mode
  "The diff an LLM payload would make.
\\<llm-edit-preview-mode-map>\\[llm-edit-preview-apply] applies it, \\[llm-edit-preview-quit] quits."
  :lighter " Preview")

(defconst llm-edit-preview-buffer "*llm-edit preview*"
  "The name of the preview buffer.")

;;;###autoload
(defun llm-edit-preview (payload)
  "Show the unified diff the LLM edit PAYLOAD would make, in `diff-mode'.
Interactively, the payload is the region when active, else the buffer;
with a prefix argument, the clipboard.  In the diff, \
\\<llm-edit-preview-mode-map>\\[llm-edit-preview-apply] applies it, \\[llm-edit-preview-quit] quits.
Nothing is changed; when an edit fails, says why instead."
  (interactive (list (if current-prefix-arg
                         (llm-edit--clipboard)
                       (llm-edit--payload-here))))
  (let* ((server (llm-edit--server))
         (result (progn (setq llm-edit--last-payload payload)
                        (llm-edit--request server "llm-edit.preview"
                                           (llm-edit--run-args payload))))
         (edit (plist-get result :edit))
         (errors (plist-get result :errors)))
    (if (not edit)
        (progn
          (message "llm-edit: nothing to preview: %s%s"
                   (llm-edit--errors-summary errors) (llm-edit--hint errors))
          nil)
      (let ((encoding (llm-edit--encoding server))
            (root (llm-edit--root server))
            (buffer (get-buffer-create llm-edit-preview-buffer)))
        (with-current-buffer buffer
          (let ((inhibit-read-only t))
            (erase-buffer)
            (setq default-directory root)
            (dolist (change (llm-edit--file-edits edit))
              (if (eq (car change) :op)
                  ;; A file operation: a line of its own between the diffs.
                  (insert (format "# llm-edit %s %s\n" (cadr change)
                                  (mapconcat (lambda (path) (file-relative-name path root))
                                             (cddr change) " to ")))
                (let ((old (llm-edit--file-text (car change))))
                  (insert (llm-edit--unified-diff
                           root old (llm-edit--apply-text-edits old (cdr change) encoding)
                           (car change))))))
            (goto-char (point-min)))
          (diff-mode)
          (setq buffer-read-only t)
          (llm-edit-preview-mode 1)
          (setq llm-edit--preview-payload payload
                llm-edit--preview-server server))
        (pop-to-buffer buffer)
        (message "llm-edit: preview of %d file%s%s: C-c C-c applies, q quits"
                 (length (plist-get result :files))
                 (if (= (length (plist-get result :files)) 1) "" "s")
                 (if (> (length errors) 0)
                     (format " (%s)" (llm-edit--errors-summary errors))
                   ""))
        buffer))))

(defun llm-edit-preview-apply ()
  "Apply the payload of this preview buffer, then close it when it applied."
  (interactive)
  (unless llm-edit--preview-payload
    (user-error "llm-edit: not a preview buffer"))
  (let* ((server llm-edit--preview-server)
         (buffer (current-buffer))
         (result (llm-edit--report-apply
                  server (llm-edit--request server "llm-edit.apply"
                                            (llm-edit--run-args llm-edit--preview-payload)))))
    (when (eq (plist-get result :applied) t)
      (quit-window t (get-buffer-window buffer)))
    result))

(defun llm-edit-preview-quit ()
  "Close this preview buffer without applying."
  (interactive)
  (quit-window t))


;;; Retry prompt, context

;;;###autoload
(defun llm-edit-retry-prompt (payload)
  "Put on the kill ring the text telling the LLM what failed in PAYLOAD.
Interactively, the payload is the region when active, else the payload
of the last llm-edit command, else the buffer."
  (interactive (list (cond ((use-region-p) (llm-edit--payload-here))
                           (llm-edit--last-payload)
                           (t (llm-edit--payload-here)))))
  (let* ((server (llm-edit--server))
         (prompt (plist-get (llm-edit--request server "llm-edit.retryPrompt"
                                               (llm-edit--run-args payload))
                            :prompt)))
    (if (not (stringp prompt))
        (progn (message "llm-edit: nothing failed; no retry prompt") nil)
      (kill-new prompt)
      (message "llm-edit: retry prompt (%d lines) copied to the kill ring; yank it into the chat"
               (length (split-string prompt "\n" t)))
      prompt)))

;;;###autoload
(defun llm-edit-capture-context (&optional only-this-file)
  "Record the text the LLM is shown: every open file of the workspace.
With a prefix argument (ONLY-THIS-FILE), only the current buffer's file.
Changes you make afterwards are merged with the LLM's edits (`~M')."
  (interactive "P")
  (let* ((server (llm-edit--server))
         (argument (if only-this-file
                       (list :paths (vector (file-relative-name
                                             (or buffer-file-name
                                                 (user-error "llm-edit: this buffer visits no file"))
                                             (llm-edit--root server))))
                     (list)))
         (result (llm-edit--request server "llm-edit.captureContext"
                                    (or argument (make-hash-table)))))
    (message "llm-edit: captured context %s: %s"
             (plist-get result :id)
             (let ((files (append (plist-get result :files) nil)))
               (if files
                   (format "%d file%s (%s)" (length files) (if (= (length files) 1) "" "s")
                           (string-join files ", "))
                 "no files")))
    result))

;;;###autoload
(defun llm-edit-release-context ()
  "Forget the captured context; edits then match against the buffers only."
  (interactive)
  (let* ((server (llm-edit--server))
         (result (llm-edit--request server "llm-edit.releaseContext" (make-hash-table))))
    (setf (alist-get (plist-get result :id) (llm-edit--status server) nil t #'equal) nil)
    (force-mode-line-update t)
    (message "llm-edit: released context %s" (plist-get result :id))
    result))

;;;###autoload
(defun llm-edit-status ()
  "Echo the status of every file of the captured context."
  (interactive)
  (let* ((server (llm-edit--server))
         (result (llm-edit--request server "llm-edit.status" (make-hash-table)))
         (files (append (plist-get result :files) nil)))
    (setf (alist-get (plist-get result :id) (llm-edit--status server) nil nil #'equal)
          (plist-get result :files))
    (force-mode-line-update t)
    (message "llm-edit: context %s: %s" (plist-get result :id)
             (if files
                 (mapconcat (lambda (f)
                              (let ((status (plist-get f :status)))
                                (format "%s %s" (if (string-empty-p status) "=" status)
                                        (plist-get f :path))))
                            files ", ")
               "no files"))
    result))


;;; The global minor mode

(defvar llm-edit-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "a") #'llm-edit-apply-clipboard)
    (define-key map (kbd "r") #'llm-edit-apply-region)
    (define-key map (kbd "b") #'llm-edit-apply-buffer)
    (define-key map (kbd "p") #'llm-edit-preview)
    (define-key map (kbd "y") #'llm-edit-retry-prompt)
    (define-key map (kbd "c") #'llm-edit-capture-context)
    (define-key map (kbd "k") #'llm-edit-release-context)
    (define-key map (kbd "s") #'llm-edit-status)
    map)
  "The llm-edit commands, for a prefix key of your choice:
\(global-set-key (kbd \"C-c e\") llm-edit-command-map).")
(fset 'llm-edit-command-map llm-edit-command-map)

;;;###autoload
(define-minor-mode llm-edit-mode
  "Use llm-edit-lsp through eglot, and show its status in the mode line.
Turning it on registers the server with eglot for `llm-edit-major-modes'
\(run \\[eglot] in such a buffer to start it); the lighter shows \"~M:N\"
when N files changed both in your buffers and in the LLM's edits since
`llm-edit-capture-context'."
  :global t
  :group 'llm-edit
  :lighter (:eval (llm-edit--lighter))
  (if llm-edit-mode
      (llm-edit--register)
    (llm-edit--unregister)))

(provide 'llm-edit)

;;; llm-edit.el ends here
