"""A tiny inventory service used by the llm-edit-lsp demo."""

import logging

log = logging.getLogger(__name__)


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, count):
        self.items[name] = self.items.get(name, 0) + count
        log.info("added %s x%d", name, count)

    def remove(self, name, count):
        self.items[name] = self.items.get(name, 0) - count

    def total(self):
        return sum(self.items.values())
