;;; emacs_package_e2e.el --- End-to-end test of editors/emacs/llm-edit.el  -*- lexical-binding: t; -*-

;; LLM_EDIT_LSP=target/release/llm-edit-lsp \
;;   timeout 120 emacs --batch -l tests/editors/emacs_package_e2e.el
;;
;; Another eglot than the installed package (say a newer one, with the
;; jsonrpc, flymake, eldoc, project, xref and external-completion it needs,
;; byte-compiled in DIR): put DIR first and keep package.el from
;; activating the installed ones:
;;   emacs --batch -L DIR \
;;     --eval "(setq package-load-list '((eglot nil) (project nil) (xref nil) all))" \
;;     -l tests/editors/emacs_package_e2e.el
;; The last line names the eglot version that ran.
;;
;; Byte-compiles editors/emacs/llm-edit.el (any warning fails), loads it,
;; checks the preview's position conversion in every encoding (0.), turns
;; `llm-edit-mode' on and starts eglot on a temporary workspace with the
;; real server, then checks through the package's commands:
;;   1. `llm-edit-apply-region' edits an unsaved buffer (text only in the
;;      buffer) to the exact expected text; the echo area says so;
;;   2. `llm-edit-apply-buffer' applies a response buffer;
;;   3. `llm-edit-apply-clipboard' applies the newest kill to a file no
;;      buffer visits (eglot visits it; nothing is saved);
;;   4. a failing payload: the message is the server's refusal, nothing
;;      changes, and `llm-edit-retry-prompt' puts the prompt on the kill ring;
;;   5. `llm-edit-preview' shows the exact unified diff in a `diff-mode'
;;      buffer (non-ASCII text on the lines), changes nothing; C-c C-c there
;;      applies it and closes the buffer;
;;   6. `llm-edit-capture-context', a change of yours, an LLM edit of the
;;      same file: the lighter shows "~M:1" (from `llm-edit/status'), the
;;      apply merges both changes, and the lighter clears;
;;   7. a change of yours on the LLM's lines: the preview and the apply are
;;      refused with the conflict, the lighter shows "~M:1", the conflict's
;;      code action takes the LLM's version, `llm-edit-release-context'
;;      releases the context;
;;   8. a modified buffer that the server does not manage (its text is
;;      not the disk's the edit was planned on) is refused, untouched.
;; Prints the messages the commands showed; exits 0 when every check
;; passed, 1 otherwise.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(package-initialize)
(require 'eglot)
(require 'python)
(require 'bytecomp)

(defvar e2e-timeout 10 "Seconds to wait for the server.")

(defvar e2e-repo (expand-file-name "../.." (file-name-directory (or load-file-name buffer-file-name)))
  "The repository.")

(defvar e2e-package (expand-file-name "editors/emacs/llm-edit.el" e2e-repo)
  "The package under test.")

(defvar e2e-root (file-name-as-directory (make-temp-file "llm-edit-emacs-pkg-" t))
  "The workspace of the test.")

(defvar e2e-messages nil "Every message shown, newest first.")

(defun e2e-log (format-string &rest args)
  "Print FORMAT-STRING with ARGS on stderr."
  (princ (concat (apply #'format format-string args) "\n") #'external-debugging-output))

(defun e2e-write (relative text)
  "Write TEXT to RELATIVE under the workspace."
  (let ((path (expand-file-name relative e2e-root)))
    (make-directory (file-name-directory path) t)
    (let ((coding-system-for-write 'utf-8-unix))
      (write-region text nil path nil 'silent))
    path))

(defun e2e-disk (relative)
  "The text of RELATIVE on disk."
  (with-temp-buffer
    (let ((coding-system-for-read 'utf-8-unix))
      (insert-file-contents (expand-file-name relative e2e-root)))
    (buffer-string)))

(defun e2e-text (buffer)
  "The text of BUFFER."
  (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max))))

(defun e2e-expect-equal (actual expected what)
  "Fail with WHAT unless ACTUAL equals EXPECTED."
  (unless (equal actual expected)
    (error "%s:\n--- expected\n%s\n--- actual\n%s" what expected actual)))

(defun e2e-expect-match (regexp string what)
  "Fail with WHAT unless REGEXP matches STRING."
  (unless (and string (string-match-p regexp string))
    (error "%s: %S does not match %S" what string regexp)))

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

(defun e2e-block (path search replace)
  "A SEARCH/REPLACE block for PATH: SEARCH and REPLACE are lists of lines."
  (apply #'e2e-lines (append (list path "```python" "<<<<<<< SEARCH") search
                             (list "=======") replace (list ">>>>>>> REPLACE" "```"))))

(defun e2e-last-message ()
  "The newest message that came from llm-edit."
  (cl-find-if (lambda (m) (string-prefix-p "llm-edit:" m)) e2e-messages))

(defun e2e-lighter ()
  "The mode-line text of `llm-edit-mode', from `minor-mode-alist'.
`format-mode-line' gives \"\" in batch mode (no window system to format
for): evaluate the (:eval FORM) lighter the way it would."
  (let ((lighter (cadr (assq 'llm-edit-mode minor-mode-alist))))
    (unless (eq (car-safe lighter) :eval)
      (error "The lighter of llm-edit-mode is not an :eval form: %S" lighter))
    (substring-no-properties (eval (cadr lighter) t))))

;; The workspace root is the test directory, whatever the subdirectory.
(defun e2e-project (_dir)
  "The test workspace as a transient project."
  (cons 'transient e2e-root))

(defun e2e-byte-compile ()
  "Byte-compile the package into a temporary file; any warning fails.
So does a message of the compiler about an error (a compiler macro's
error is only a message, not a warning)."
  (let* ((dest (make-temp-file "llm-edit-" nil ".elc"))
         (byte-compile-dest-file-function (lambda (_source) dest))
         (byte-compile-error-on-warn t)
         (e2e-messages nil)
         (ok (byte-compile-file e2e-package))
         (complaint (cl-find-if (lambda (m) (string-match-p "error\\|[Ww]arning" m))
                                e2e-messages)))
    (when complaint
      (error "Byte-compiling %s: %s" e2e-package complaint))
    (unless ok
      (error "Byte-compiling %s failed:\n%s" e2e-package
             (if (get-buffer byte-compile-log-buffer)
                 (with-current-buffer byte-compile-log-buffer (buffer-string))
               "")))
    (delete-file dest)
    (e2e-log "ok: llm-edit.el byte-compiles without warnings")))

(defun e2e-setup ()
  "Load the package and turn `llm-edit-mode' on with the server in LLM_EDIT_LSP."
  (let ((server (getenv "LLM_EDIT_LSP")))
    (unless (and server (file-executable-p server))
      (error "Set LLM_EDIT_LSP to the llm-edit-lsp binary (got %S)" server))
    (load e2e-package nil t)
    (setq llm-edit-server-program server)
    ;; Python buffers are managed by llm-edit-lsp too, so the server sees
    ;; their unsaved changes (no other Python server here).
    (setq llm-edit-major-modes '(python-mode text-mode))
    (llm-edit-mode 1))
  (add-hook 'project-find-functions #'e2e-project)
  ;; Batch mode has nobody to say yes: apply server edits unasked, and
  ;; answer yes when eglot asks to visit a file no buffer visits.
  (setq eglot-confirm-server-initiated-edits nil)
  (fset 'y-or-n-p (lambda (&rest _) t))
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
        (apply #'eglot (eglot--guess-contact)))
      (e2e-wait-for (format "eglot to manage %s" relative)
                    (lambda () (bound-and-true-p eglot--managed-mode)))
      ;; Not `cl-typep': the class is unknown when this file is read.
      (unless (object-of-class-p (eglot-current-server) 'llm-edit-server)
        (error "%s is not managed by llm-edit-lsp: %S" relative (eglot-current-server))))
    buffer))

(defun e2e-response (text)
  "A text-mode response buffer holding TEXT, managed by eglot."
  (let ((buffer (e2e-open "response.txt" #'text-mode)))
    (with-current-buffer buffer
      (erase-buffer)
      (insert text))
    buffer))

(defun e2e-check-apply-region (app)
  "1. `llm-edit-apply-region' edits the unsaved buffer APP."
  (with-current-buffer app
    (goto-char (point-min))
    (search-forward "print(\"hi\")")
    (replace-match "print(\"hello\")" t t))
  (let ((response (e2e-response
                   (concat "Sure, here it is:\n\n"
                           (e2e-block "src/app.py"
                                      '("def greet():" "    print(\"hello\")")
                                      '("def greet(name):" "    print(f\"hello {name}\")"))
                           "\nDone.\n"))))
    (with-current-buffer response
      (let ((result (llm-edit-apply-region (point-min) (point-max))))
        (unless (eq (plist-get result :applied) t)
          (error "apply-region did not apply: %S" result)))))
  (e2e-expect-equal (e2e-text app)
                    "def greet(name):\n    print(f\"hello {name}\")\n\nVALUE = 1\n"
                    "src/app.py buffer after llm-edit-apply-region")
  (e2e-expect-equal (e2e-disk "src/app.py") "def greet():\n    print(\"hi\")\n\nVALUE = 1\n"
                    "src/app.py on disk (nothing is saved)")
  (e2e-expect-match "\\`llm-edit: Applied 1 edit to 1 file" (e2e-last-message)
                    "the apply-region message")
  (e2e-log "ok: apply-region edited the unsaved buffer: %s" (e2e-last-message)))

(defun e2e-check-apply-buffer (util)
  "2. `llm-edit-apply-buffer' applies a response buffer to UTIL."
  (with-current-buffer (e2e-response (e2e-block "src/util.py"
                                                '("def add(a, b):" "    return a - b")
                                                '("def add(a, b):" "    return a + b")))
    (llm-edit-apply-buffer))
  (e2e-expect-equal (e2e-text util) "def add(a, b):\n    return a + b\n"
                    "src/util.py buffer after llm-edit-apply-buffer")
  (e2e-log "ok: apply-buffer edited src/util.py: %s" (e2e-last-message)))

(defun e2e-check-apply-clipboard ()
  "3. `llm-edit-apply-clipboard' applies the newest kill to an unvisited file."
  (when (find-buffer-visiting (expand-file-name "src/clip.py" e2e-root))
    (error "src/clip.py is visited already"))
  (kill-new (e2e-block "src/clip.py" '("LIMIT = 10") '("LIMIT = 20")))
  (with-current-buffer (e2e-response "")
    (llm-edit-apply-clipboard))
  (let ((clip (e2e-wait-for "a buffer visiting src/clip.py"
                            (lambda () (find-buffer-visiting
                                        (expand-file-name "src/clip.py" e2e-root))))))
    (e2e-expect-equal (e2e-text clip) "import os\n\nLIMIT = 20\n"
                      "src/clip.py buffer after llm-edit-apply-clipboard"))
  (e2e-expect-equal (e2e-disk "src/clip.py") "import os\n\nLIMIT = 10\n"
                    "src/clip.py on disk (nothing is saved)")
  (e2e-log "ok: apply-clipboard edited src/clip.py: %s" (e2e-last-message)))

(defun e2e-check-refusal (app)
  "4. A failing payload is refused with the server's reason; the retry prompt."
  (let ((before (e2e-text app))
        result)
    (with-current-buffer (e2e-response (e2e-block "src/app.py" '("VALUE = 2") '("VALUE = 3")))
      (setq result (llm-edit-apply-buffer)))
    (when (eq (plist-get result :applied) t)
      (error "A missing search text applied: %S" result))
    (e2e-expect-equal (e2e-text app) before "src/app.py after a refused payload")
    (e2e-expect-match "\\`llm-edit: nothing applied: .*src/app\\.py.*not found\\|\\`llm-edit: nothing applied: .*not_found"
                      (e2e-last-message) "the refusal message")
    (e2e-log "ok: refusal: %s" (e2e-last-message))
    (with-current-buffer "response.txt"
      (call-interactively #'llm-edit-retry-prompt))
    (e2e-expect-match "@retry_context" (current-kill 0 t) "the retry prompt on the kill ring")
    (e2e-expect-match "VALUE = 2" (current-kill 0 t) "the failed block in the retry prompt")
    (e2e-log "ok: retry prompt on the kill ring: %s\n%s" (e2e-last-message) (current-kill 0 t))))

(defun e2e-check-preview (app)
  "5. `llm-edit-preview' shows the diff; C-c C-c applies it."
  (let* ((before (e2e-text app))
         (payload (e2e-block "src/app.py"
                             '("    print(f\"hello {name}\")" "" "VALUE = 1")
                             '("    print(f\"héllo {name} 😀\")" "" "VALUE = 2")))
         (preview (with-current-buffer (e2e-response payload)
                    (llm-edit-preview (buffer-string)))))
    (unless (bufferp preview)
      (error "llm-edit-preview gave no buffer: %S (%s)" preview (e2e-last-message)))
    (e2e-expect-equal (e2e-text app) before "src/app.py after a preview (unchanged)")
    (with-current-buffer preview
      (unless (eq major-mode 'diff-mode)
        (error "The preview is in %s, not diff-mode" major-mode))
      (e2e-expect-equal (e2e-text preview)
                        (e2e-lines "--- a/src/app.py" "+++ b/src/app.py" "@@ -1,4 +1,4 @@"
                                   " def greet(name):" "-    print(f\"hello {name}\")"
                                   "+    print(f\"héllo {name} 😀\")" " " "-VALUE = 1"
                                   "+VALUE = 2")
                        "the preview's diff")
      (e2e-log "ok: preview in diff-mode (position encoding %s):\n%s%s"
               (llm-edit--encoding llm-edit--preview-server) (e2e-text preview) (e2e-last-message))
      (let ((apply (key-binding (kbd "C-c C-c"))))
        (unless (eq apply 'llm-edit-preview-apply)
          (error "C-c C-c in the preview runs %S" apply))
        (call-interactively apply)))
    (e2e-expect-equal (e2e-text app)
                      "def greet(name):\n    print(f\"héllo {name} 😀\")\n\nVALUE = 2\n"
                      "src/app.py after applying from the preview")
    (when (buffer-live-p preview)
      (error "The preview buffer is still there after applying"))
    (e2e-log "ok: applied from the preview: %s" (e2e-last-message))))

(defun e2e-quiet ()
  "Wait until the response buffer stopped changing 1.5 s ago.
The server refuses to capture while a response may still be streaming in;
a user captures before asking the LLM, a script right after typing."
  (let ((until (+ (float-time) 1.7)))
    (while (< (float-time) until)
      (accept-process-output nil 0.05))))

(defun e2e-check-context-merge (app)
  "6. Capture, a change of yours, an LLM edit of the file: ~M, then a merge."
  (e2e-quiet)
  (with-current-buffer app (llm-edit-capture-context))
  (e2e-expect-match "\\`llm-edit: captured context default: .*src/app\\.py" (e2e-last-message)
                    "the capture message")
  (e2e-log "ok: %s" (e2e-last-message))
  (e2e-expect-equal (e2e-lighter) " LLM" "the lighter after the capture")
  ;; Your change, on the first line; the LLM's, on the last.
  (with-current-buffer app
    (goto-char (point-min))
    (insert "import sys\n"))
  (let ((payload (e2e-block "src/app.py" '("VALUE = 2") '("VALUE = 3"))))
    (with-current-buffer (e2e-response payload)
      (llm-edit-preview (buffer-string)))
    (e2e-wait-for "the lighter to show ~M:1" (lambda () (equal (e2e-lighter) " LLM ~M:1")))
    (e2e-log "ok: the lighter shows %S" (e2e-lighter))
    (with-current-buffer app (llm-edit-status))
    (e2e-expect-match "~M src/app\\.py" (e2e-last-message) "the status message")
    (e2e-log "ok: %s" (e2e-last-message))
    (with-current-buffer llm-edit-preview-buffer
      (call-interactively #'llm-edit-preview-apply)))
  (e2e-expect-equal (e2e-text app)
                    "import sys\ndef greet(name):\n    print(f\"héllo {name} 😀\")\n\nVALUE = 3\n"
                    "src/app.py after merging the LLM edit with your change")
  (e2e-wait-for "the lighter to clear" (lambda () (equal (e2e-lighter) " LLM")))
  (e2e-log "ok: merged (%s); the lighter is %S again" (e2e-last-message) (e2e-lighter)))

(defun e2e-check-conflict (app)
  "7. Your change on the LLM's lines: refused with the conflict; release."
  (e2e-quiet)
  (with-current-buffer app
    (llm-edit-capture-context)
    (goto-char (point-max))
    (search-backward "VALUE = 3")
    (replace-match "VALUE = 4" t t))
  (let ((before (e2e-text app))
        (payload (e2e-block "src/app.py" '("VALUE = 3") '("VALUE = 5"))))
    (with-current-buffer (e2e-response payload)
      (llm-edit-preview (buffer-string))
      (e2e-expect-match "\\`llm-edit: nothing to preview: .*change the same lines (line 5).*eglot-code-actions"
                        (e2e-last-message) "the conflict message of the preview")
      (e2e-log "ok: preview of a conflict: %s" (e2e-last-message))
      (e2e-wait-for "the lighter to show ~M:1" (lambda () (equal (e2e-lighter) " LLM ~M:1")))
      (e2e-log "ok: the lighter shows %S" (e2e-lighter))
      (llm-edit-apply-buffer))
    (e2e-expect-match "\\`llm-edit: nothing applied: .*change the same lines (line 5).*eglot-code-actions"
                      (e2e-last-message) "the conflict message")
    (e2e-expect-equal (e2e-text app) before "src/app.py after a conflict (unchanged)")
    (e2e-log "ok: conflict: %s" (e2e-last-message))
    (e2e-log "ok: flymake: %s"
             (with-current-buffer app
               (flymake-start)
               (mapconcat #'flymake-diagnostic-text
                          (e2e-wait-for "the conflict diagnostic"
                                        (lambda () (flymake-diagnostics)))
                          " | "))))
  ;; The conflict's code action on your line takes the LLM's version.
  (with-current-buffer app
    (goto-char (point-min))
    (forward-line 4)
    (let* ((action (e2e-wait-for "an \"Apply LLM version here\" code action"
                                 (lambda ()
                                   (cl-find-if (lambda (a)
                                                 (string-prefix-p "Apply LLM version here"
                                                                  (plist-get a :title)))
                                               (eglot-code-actions (point) (point))))))
           (command (plist-get action :command))
           (result (llm-edit--request (eglot-current-server) (plist-get command :command)
                                      (aref (plist-get command :arguments) 0))))
      (unless (eq (plist-get result :applied) t)
        (error "The conflict's code action did not apply: %S" result))
      (e2e-log "ok: code action %S" (plist-get action :title))))
  (e2e-expect-equal (e2e-text app)
                    "import sys\ndef greet(name):\n    print(f\"héllo {name} 😀\")\n\nVALUE = 5\n"
                    "src/app.py after taking the LLM's version of the conflict")
  (e2e-quiet)
  (with-current-buffer app (llm-edit-release-context))
  (e2e-expect-equal (e2e-last-message) "llm-edit: released context default" "the release message")
  (e2e-expect-equal (e2e-lighter) " LLM" "the lighter after the release")
  (e2e-log "ok: %s" (e2e-last-message)))

(defun e2e-check-offline ()
  "0. The preview's pieces without a server: positions in each encoding
\(eglot 1.9 negotiates utf-16, Emacs 29+ utf-8) and file operations."
  (let ((text "a😀b\né!\n"))
    (dolist (case '(("utf-16" 3 1) ("utf-8" 5 2) ("utf-32" 2 1)))
      (pcase-let ((`(,encoding ,after-emoji ,after-e) case))
        (e2e-expect-equal
         (llm-edit--apply-text-edits
          text (vector (list :range (list :start (list :line 0 :character after-emoji)
                                          :end (list :line 0 :character (1+ after-emoji)))
                             :newText "B")
                       (list :range (list :start (list :line 1 :character after-e)
                                          :end (list :line 1 :character after-e))
                             :newText "?")
                       (list :range (list :start (list :line 1 :character after-e)
                                          :end (list :line 1 :character after-e))
                             :newText "?!"))
          encoding)
         "a😀B\né??!!\n" (format "text edits in %s" encoding)))))
  (e2e-expect-equal
   (llm-edit--file-edits
    (list :documentChanges
          (vector (list :kind "create" :uri "file:///w/new%20file.py")
                  (list :textDocument (list :uri "file:///w/new%20file.py" :version nil)
                        :edits [])
                  (list :kind "rename" :oldUri "file:///w/a.py" :newUri "file:///w/b.py")
                  (list :kind "delete" :uri "file:///w/c.py"))))
   '((:op "creates" "/w/new file.py") ("/w/new file.py" . []) (:op "renames" "/w/a.py" "/w/b.py")
     (:op "deletes" "/w/c.py"))
   "the changes of a WorkspaceEdit with file operations")
  (e2e-log "ok: positions in utf-16, utf-8, utf-32; file operations"))

(defun e2e-eglot-version ()
  "The version of the eglot that is loaded, from its source's header."
  (require 'lisp-mnt)
  (let* ((file (symbol-file 'eglot-current-server 'defun))
         (base (and file (file-name-sans-extension file)))
         (source (cl-find-if #'file-exists-p
                             (and base (list (concat base ".el") (concat base ".el.gz"))))))
    (or (and source
             (with-temp-buffer
               (insert-file-contents source)
               (lm-header "Version")))
        (format "unknown (%s)" file))))

(defun e2e-record-message (orig format-string &rest args)
  "Call ORIG (`message') with FORMAT-STRING and ARGS; keep the text."
  (let ((text (apply orig format-string args)))
    (when text (push text e2e-messages))
    text))

(defun e2e-check-unmanaged ()
  "8. A modified buffer the server does not manage is not edited."
  (let ((notes (find-file-noselect (expand-file-name "notes.cfg" e2e-root))))
    (with-current-buffer notes
      (fundamental-mode)
      (goto-char (point-min))
      (insert "# mine\n"))
    (with-current-buffer (e2e-response (e2e-block "notes.cfg" '("level = 1") '("level = 2")))
      (let ((result (llm-edit-apply-buffer)))
        (when (eq (plist-get result :applied) t)
          (error "An edit of an unmanaged modified buffer applied: %S" result))))
    (e2e-expect-match "\\`llm-edit: nothing applied: .*notes\\.cfg has unsaved changes llm-edit-lsp cannot see"
                      (e2e-last-message) "the message about an unmanaged buffer")
    (e2e-expect-equal (e2e-text notes) "# mine\nname = x\nlevel = 1\n"
                      "notes.cfg after the refused edit (unchanged)")
    (e2e-log "ok: unmanaged modified buffer: %s" (e2e-last-message))))

(defun e2e-main ()
  "Run every check."
  (advice-add 'message :around #'e2e-record-message)
  (e2e-byte-compile)
  (e2e-write "src/app.py" "def greet():\n    print(\"hi\")\n\nVALUE = 1\n")
  (e2e-write "src/util.py" "def add(a, b):\n    return a - b\n")
  (e2e-write "src/clip.py" "import os\n\nLIMIT = 10\n")
  (e2e-write "notes.cfg" "name = x\nlevel = 1\n")
  (e2e-setup)
  (e2e-check-offline)
  (let ((app (e2e-open "src/app.py" #'python-mode))
        (util (e2e-open "src/util.py" #'python-mode)))
    (e2e-check-apply-region app)
    (e2e-check-apply-buffer util)
    (e2e-check-apply-clipboard)
    (e2e-check-refusal app)
    (e2e-check-preview app)
    (e2e-check-context-merge app)
    (e2e-check-conflict app)
    (e2e-check-unmanaged)))

(condition-case err
    (progn
      (e2e-main)
      (e2e-log "emacs package e2e (Emacs %s, eglot %s): all checks passed"
               emacs-version
               (e2e-eglot-version))
      (ignore-errors (eglot-shutdown-all))
      (ignore-errors (delete-directory e2e-root t))
      (kill-emacs 0))
  (t
   (e2e-log "emacs package e2e FAILED: %s" (error-message-string err))
   (kill-emacs 1)))

;;; emacs_package_e2e.el ends here
