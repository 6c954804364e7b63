;;; eglot_e2e.el --- End-to-end test of llm-edit-lsp in Emacs with eglot  -*- lexical-binding: t; -*-

;; LLM_EDIT_LSP=target/release/llm-edit-lsp \
;;   timeout 90 emacs --batch -l tests/editors/eglot_e2e.el
;;
;; Checks, through eglot (Debian's elpa-eglot, 1.9 on Emacs 28):
;;   1. `llm-edit.apply' (via `eglot-execute-command') edits an unsaved
;;      buffer: the search text exists only in the buffer, not on disk;
;;      eglot answers the server's workspace/applyEdit;
;;   2. a payload whose search text is missing shows an `llm-edit'
;;      diagnostic in `flymake-diagnostics' of its target buffer;
;;   3. the "Apply this edit" code action of a response buffer (text with a
;;      SEARCH/REPLACE block) edits its target buffer.
;; Exits 0 when every check passed, 1 otherwise.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(package-initialize)
(require 'eglot)
(require 'flymake)
(require 'python)

(defvar e2e-timeout 10 "Seconds to wait for the server.")

(defvar e2e-root (file-name-as-directory (make-temp-file "llm-edit-eglot-" t))
  "The workspace of the test.")

(defun e2e-log (format-string &rest args)
  "Print FORMAT-STRING with ARGS on stderr."
  (princ (concat (apply #'format format-string args) "\n") #'external-debugging-output))

(defun e2e-write (relative text)
  "Write TEXT to RELATIVE under the workspace."
  (let ((path (expand-file-name relative e2e-root)))
    (make-directory (file-name-directory path) t)
    (with-temp-file path (insert text))
    path))

(defun e2e-disk (relative)
  "The text of RELATIVE on disk."
  (with-temp-buffer
    (insert-file-contents (expand-file-name relative e2e-root))
    (buffer-string)))

(defun e2e-expect-equal (actual expected what)
  "Fail with WHAT unless ACTUAL equals EXPECTED."
  (unless (equal actual expected)
    (error "%s:\n--- expected\n%s--- actual\n%s" what expected actual)))

(defun e2e-wait-for (what check)
  "Process server output until CHECK returns non-nil; return it or fail naming WHAT."
  (let ((deadline (+ (float-time) e2e-timeout))
        value)
    (while (and (not (setq value (funcall check)))
                (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or value (error "Timed out waiting for %s" what))))

(defun e2e-lines (&rest lines)
  "LINES joined, each newline-terminated."
  (mapconcat (lambda (line) (concat line "\n")) lines ""))

;; The workspace root is the test directory, whatever the subdirectory.
(defun e2e-project (_dir)
  "The test workspace as a transient project."
  (cons 'transient e2e-root))

(defun e2e-setup ()
  "Configure eglot for the server in LLM_EDIT_LSP."
  (let ((server (getenv "LLM_EDIT_LSP")))
    (unless (and server (file-executable-p server))
      (error "Set LLM_EDIT_LSP to the llm-edit-lsp binary (got %S)" server))
    (add-to-list 'eglot-server-programs
                 `((python-mode text-mode) . (,server "lsp" :initializationOptions
                                                      (:llmEdit (:matchMode "tolerant"))))))
  (add-hook 'project-find-functions #'e2e-project)
  ;; Batch mode has nobody to say yes: apply server edits unasked.
  (setq eglot-confirm-server-initiated-edits nil)
  (setq eglot-sync-connect e2e-timeout)
  (setq eglot-autoshutdown nil))

(defun e2e-open (relative mode)
  "Visit RELATIVE in MODE, managed by eglot; return the buffer."
  (let ((buffer (find-file-noselect (expand-file-name relative e2e-root))))
    (switch-to-buffer buffer)
    ;; `eglot-ensure' connects from `post-command-hook', which batch mode
    ;; never runs: connect by hand (later buffers of the same project join
    ;; the running server when their major mode starts).
    (with-current-buffer buffer
      (funcall mode)
      (unless (eglot-current-server)
        (apply #'eglot (append (eglot--guess-contact) nil)))
      (e2e-wait-for (format "eglot to manage %s" relative)
                    (lambda () (bound-and-true-p eglot--managed-mode))))
    buffer))

(defun e2e-execute (buffer command argument)
  "Run server COMMAND with ARGUMENT from BUFFER; return its result."
  (with-current-buffer buffer
    ;; eglot sends didChange from an idle timer, which has not fired yet in
    ;; a script (a user typing M-x gives it the time): flush it now.
    (eglot--signal-textDocument/didChange)
    (eglot-execute-command (eglot--current-server-or-lose) command (vector argument))))

(defun e2e-check-apply (app)
  "1. `llm-edit.apply' edits the unsaved buffer APP."
  (with-current-buffer app
    (goto-char (point-min))
    (search-forward "print(\"hi\")")
    (replace-match "print(\"hello\")" t t))
  (let* ((payload (e2e-lines "src/app.py" "```python" "<<<<<<< SEARCH" "def greet():"
                             "    print(\"hello\")" "=======" "def greet(name):"
                             "    print(f\"hello {name}\")" ">>>>>>> REPLACE" "```"))
         (result (e2e-execute app 'llm-edit.apply (list :payload payload))))
    (unless (eq (plist-get result :applied) t)
      (error "llm-edit.apply did not apply: %S" result)))
  (e2e-expect-equal (with-current-buffer app (buffer-string))
                    "def greet(name):\n    print(f\"hello {name}\")\n\nVALUE = 1\n"
                    "src/app.py buffer after llm-edit.apply")
  (e2e-expect-equal (e2e-disk "src/app.py") "def greet():\n    print(\"hi\")\n\nVALUE = 1\n"
                    "src/app.py on disk (nothing is saved)")
  (e2e-log "ok: llm-edit.apply edited the unsaved buffer"))

(defun e2e-llm-edit-diagnostics (buffer)
  "The flymake diagnostics of BUFFER that came from llm-edit."
  (with-current-buffer buffer
    (flymake-start)
    (cl-remove-if-not (lambda (d) (string-match-p "llm-edit" (flymake-diagnostic-text d)))
                      (flymake-diagnostics))))

(defun e2e-check-diagnostic (app)
  "2. A failing payload's diagnostic in APP's `flymake-diagnostics'."
  (let* ((payload (e2e-lines "src/app.py" "<<<<<<< SEARCH" "VALUE = 2" "=======" "VALUE = 3"
                             ">>>>>>> REPLACE"))
         (result (e2e-execute app 'llm-edit.apply (list :payload payload))))
    (when (or (eq (plist-get result :applied) t) (seq-empty-p (plist-get result :errors)))
      (error "A missing search text applied: %S" result)))
  (let ((diagnostics (e2e-wait-for "an llm-edit diagnostic in flymake"
                                   (lambda () (e2e-llm-edit-diagnostics app)))))
    (e2e-log "ok: flymake diagnostic: %s" (flymake-diagnostic-text (car diagnostics))))
  (e2e-expect-equal (with-current-buffer app (buffer-string))
                    "def greet(name):\n    print(f\"hello {name}\")\n\nVALUE = 1\n"
                    "src/app.py after a failing payload (unchanged)"))

(defun e2e-check-code-action ()
  "3. The \"Apply this edit\" code action of a response buffer."
  (let* ((util (e2e-open "src/util.py" #'python-mode))
         (response (e2e-open "response.txt" #'text-mode))
         action)
    (with-current-buffer response
      (insert (e2e-lines "Here is the change:" "" "src/util.py" "```python" "<<<<<<< SEARCH"
                         "def add(a, b):" "    return a - b" "=======" "def add(a, b):"
                         "    return a + b" ">>>>>>> REPLACE" "```"))
      (goto-char (point-min))
      (forward-line 6)
      ;; The server analyzes a response once it stops changing: poll.
      (setq action
            (e2e-wait-for "an \"Apply this edit\" code action"
                          (lambda ()
                            (cl-find-if (lambda (a)
                                          (string-prefix-p "Apply this edit"
                                                           (plist-get a :title)))
                                        (eglot-code-actions (point) (point))))))
      (e2e-log "ok: code action: %s" (plist-get action :title))
      (let* ((command (plist-get action :command))
             (result (eglot-execute-command (eglot--current-server-or-lose)
                                            (intern (plist-get command :command))
                                            (plist-get command :arguments))))
        (unless (eq (plist-get result :applied) t)
          (error "The code action's command did not apply: %S" result))))
    (e2e-expect-equal (with-current-buffer util (buffer-string))
                      "def add(a, b):\n    return a + b\n"
                      "src/util.py buffer after the code action")
    (e2e-log "ok: the code action edited src/util.py")))

(defun e2e-main ()
  "Run every check."
  (e2e-write "src/app.py" "def greet():\n    print(\"hi\")\n\nVALUE = 1\n")
  (e2e-write "src/util.py" "def add(a, b):\n    return a - b\n")
  (e2e-setup)
  (let ((app (e2e-open "src/app.py" #'python-mode)))
    (e2e-check-apply app)
    (e2e-check-diagnostic app)
    (e2e-check-code-action)))

(condition-case err
    (progn
      (e2e-main)
      (e2e-log "eglot e2e: all checks passed")
      (ignore-errors (eglot-shutdown-all))
      (kill-emacs 0))
  (t
   (e2e-log "eglot e2e FAILED: %s" (error-message-string err))
   (kill-emacs 1)))

;;; eglot_e2e.el ends here
