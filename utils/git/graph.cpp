// log --graph: the ASCII graph git draws at the left of its log, one commit at a time.
//
// The model is git's: a row of columns, each the commit a line of history leads to; showing a commit
// replaces its column by its parents' (a merge adds columns to the right), and the lines that follow move
// the columns until each sits where the next row expects it. Each output line is one state's drawing:
// the commit's row ("*"), the row after a merge that opens its parents' lines ("|\"), rows that move lines
// left ("|/"), and padding rows ("|") while the commit's text goes on.
#include "utils/git/core.hpp"

namespace bashkit::utils::git {

void Graph::update(const std::string& oid, const std::vector<std::string>& parents) {
    commit_ = oid;
    parents_ = parents;
    prev_commit_index_ = commit_index_;
    update_columns();
    expansion_row_ = 0;
    if (state_ != State::padding) set_state(State::skip);
    else if (needs_pre_commit_line()) set_state(State::pre_commit);
    else set_state(State::commit);
}

// An octopus merge (three parents or more) draws a dash towards each parent past the second (one less when
// it leans left); one not in the last column first makes two rows of room per dash.
int Graph::dashed_parents() const { return int(parents_.size()) + merge_layout_ - 3; }
bool Graph::needs_pre_commit_line() const {
    return parents_.size() >= 3 && commit_index_ + 1 < int(columns_.size()) && expansion_row_ < dashed_parents() * 2;
}

void Graph::set_state(State s) {
    prev_state_ = state_;
    state_ = s;
}

// The commit of column i of this row; past the columns, the commit shown when no column leads to it (a
// tip), then nothing.
const std::string* Graph::row_column(size_t i, bool seen) const {
    if (i < columns_.size()) return &columns_[i];
    return i == columns_.size() && !seen ? &commit_ : nullptr;
}

int Graph::find_new_column(const std::string& oid) const {
    for (size_t i = 0; i < new_columns_.size(); ++i)
        if (new_columns_[i] == oid) return int(i);
    return -1;
}

// A column for oid in the next row (its own if it has one), and where the line from screen position
// `index` (-1: from no commit of this row) lands.
void Graph::insert_into_new_columns(const std::string& oid, int index) {
    int i = find_new_column(oid);
    if (i < 0) {
        i = int(new_columns_.size());
        new_columns_.push_back(oid);
    }
    int mapping_index;
    if (parents_.size() > 1 && index > -1 && merge_layout_ == -1) {
        // the first parent of a merge: the merge leans left when that parent's column is to its left
        const int dist = index - i;
        const int shift = dist > 1 ? 2 * dist - 3 : 1;
        merge_layout_ = dist > 0 ? 0 : 1;
        edges_added_ = int(parents_.size()) + merge_layout_ - 2;
        mapping_index = width_ + (merge_layout_ - 1) * shift;
        width_ += 2 * merge_layout_;
    } else if (edges_added_ > 0 && width_ >= 2 && i == mapping_[size_t(width_ - 2)]) {
        mapping_index = width_ - 2;
        edges_added_ = -1;
    } else {
        mapping_index = width_;
        width_ += 2;
    }
    mapping_[size_t(mapping_index)] = i;
}

void Graph::update_columns() {
    columns_ = std::move(new_columns_);
    new_columns_.clear();
    const size_t max_new = columns_.size() + parents_.size();
    mapping_size_ = 2 * max_new;
    mapping_.assign(mapping_size_ + 2, -1);
    old_mapping_.resize(mapping_.size(), -1);
    width_ = 0;
    prev_edges_added_ = edges_added_;
    edges_added_ = 0;
    bool seen = false;
    for (size_t i = 0; const std::string* colp = row_column(i, seen); ++i) {
        const std::string col = *colp;  // a copy: new_columns_ grows below
        if (col == commit_) {
            seen = true;
            commit_index_ = int(i);
            merge_layout_ = -1;
            for (const std::string& p : parents_) insert_into_new_columns(p, int(i));
            if (parents_.empty()) width_ += 2;
        } else {
            insert_into_new_columns(col, -1);
        }
    }
    while (mapping_size_ > 1 && mapping_[mapping_size_ - 1] < 0) --mapping_size_;
}

bool Graph::mapping_correct() const {
    for (size_t i = 0; i < mapping_size_; ++i)
        if (mapping_[i] >= 0 && size_t(mapping_[i]) != i / 2) return false;
    return true;
}

void Graph::pad(std::string& line) const {
    if (line.size() < size_t(width_)) line.append(size_t(width_) - line.size(), ' ');
}

std::string Graph::next_line() {
    std::string line;
    shown_commit_line_ = false;
    switch (state_) {
        case State::padding:
            for (size_t i = 0; i < new_columns_.size(); ++i) line += "| ";
            break;
        case State::skip:
            line = "...";
            set_state(needs_pre_commit_line() ? State::pre_commit : State::commit);
            break;
        case State::pre_commit: pre_commit_line(line); break;
        case State::commit:
            commit_line(line);
            shown_commit_line_ = true;
            break;
        case State::post_merge: post_merge_line(line); break;
        case State::collapsing: collapsing_line(line); break;
    }
    pad(line);
    return line;
}

// An octopus merge not in the last column first moves the lines to its right out of the way.
void Graph::pre_commit_line(std::string& line) {
    bool seen = false;
    for (size_t i = 0; i < columns_.size(); ++i) {
        if (columns_[i] == commit_) {
            seen = true;
            line += "|";
            line.append(size_t(expansion_row_), ' ');
        } else if (seen && expansion_row_ == 0) {
            if (prev_state_ == State::post_merge && prev_commit_index_ < int(i)) line += "\\";
            else line += "|";
        } else if (seen && expansion_row_ > 0) {
            line += "\\";
        } else {
            line += "|";
        }
        line += " ";
    }
    ++expansion_row_;
    if (!needs_pre_commit_line()) set_state(State::commit);
}

void Graph::commit_line(std::string& line) {
    bool seen = false;
    for (size_t i = 0; const std::string* colp = row_column(i, seen); ++i) {
        const std::string& col = *colp;
        if (col == commit_) {
            seen = true;
            line += "*";
            for (int d = 0, n = dashed_parents(); parents_.size() > 2 && d < n; ++d) line += d + 1 == n ? "-." : "--";
        } else if (seen && edges_added_ > 1) {
            line += "\\";
        } else if (seen && edges_added_ == 1) {
            if (prev_state_ == State::post_merge && prev_edges_added_ > 0 && prev_commit_index_ < int(i)) line += "\\";
            else line += "|";
        } else if (prev_state_ == State::collapsing && old_mapping_[2 * i + 1] == int(i) && mapping_[2 * i] < int(i)) {
            line += "/";
        } else {
            line += "|";
        }
        line += " ";
    }
    if (parents_.size() > 1) set_state(State::post_merge);
    else if (mapping_correct()) set_state(State::padding);
    else set_state(State::collapsing);
}

void Graph::post_merge_line(std::string& line) {
    static const char kMergeChars[] = {'/', '|', '\\'};
    bool seen = false;
    const std::string* parent_col = nullptr;
    for (size_t i = 0; const std::string* colp = row_column(i, seen); ++i) {
        const std::string& col = *colp;
        if (col == commit_) {
            seen = true;
            int idx = merge_layout_;
            for (size_t j = 0; j < parents_.size(); ++j) {
                line += kMergeChars[idx];
                if (idx == 2) {
                    if (edges_added_ > 0 || j + 1 < parents_.size()) line += " ";
                } else {
                    ++idx;
                }
            }
            if (edges_added_ == 0) line += " ";
        } else if (seen) {
            line += edges_added_ > 0 ? "\\" : "|";
            line += " ";
        } else {
            line += "|";
            if (merge_layout_ != 0 || int(i) != commit_index_ - 1) line += parent_col ? "_" : " ";
        }
        if (!parents_.empty() && col == parents_[0]) parent_col = &parents_[0];
    }
    if (mapping_correct()) set_state(State::padding);
    else set_state(State::collapsing);
}

void Graph::collapsing_line(std::string& line) {
    bool used_horizontal = false;
    int horizontal_edge = -1, horizontal_edge_target = -1;
    std::swap(mapping_, old_mapping_);
    std::fill(mapping_.begin(), mapping_.end(), -1);
    for (size_t i = 0; i < mapping_size_; ++i) {
        const int target = old_mapping_[i];
        if (target < 0) continue;
        if (size_t(target) * 2 == i) {
            mapping_[i] = target;
        } else if (mapping_[i - 1] < 0) {
            // nothing to the left: one step left, the first such line drawn horizontally to its target
            mapping_[i - 1] = target;
            if (horizontal_edge == -1) {
                horizontal_edge = int(i);
                horizontal_edge_target = target;
                for (int j = target * 2 + 3; j < int(i) - 2; j += 2) mapping_[size_t(j)] = target;
            }
        } else if (mapping_[i - 1] == target) {
            // joins the line to its left, which leads to the same commit
        } else {
            // crosses the line to its left
            mapping_[i - 2] = target;
            if (horizontal_edge == -1) {
                horizontal_edge_target = target;
                horizontal_edge = int(i) - 1;
                for (int j = target * 2 + 3; j < int(i) - 2; j += 2) mapping_[size_t(j)] = target;
            }
        }
    }
    old_mapping_ = mapping_;
    if (mapping_size_ > 0 && mapping_[mapping_size_ - 1] < 0) --mapping_size_;
    for (size_t i = 0; i < mapping_size_; ++i) {
        const int target = mapping_[i];
        if (target < 0) {
            line += " ";
        } else if (size_t(target) * 2 == i) {
            line += "|";
        } else if (target == horizontal_edge_target && int(i) != horizontal_edge - 1) {
            if (int(i) != target * 2 + 3) mapping_[i] = -1;
            used_horizontal = true;
            line += "_";
        } else {
            if (used_horizontal && int(i) < horizontal_edge) mapping_[i] = -1;
            line += "/";
        }
    }
    if (mapping_correct()) set_state(State::padding);
}

std::string Graph::padding_line() {
    if (state_ != State::commit) return next_line();
    std::string line;
    for (const std::string& col : columns_) {
        line += "|";
        if (col == commit_ && parents_.size() > 2) line.append((parents_.size() - 2) * 2, '-');
        else line += " ";
    }
    pad(line);
    prev_state_ = State::padding;
    return line;
}

std::string Graph::show_commit() {
    std::string out;
    while (state_ != State::padding) {
        out += next_line();
        if (shown_commit_line_) return out;
        out += "\n";
    }
    return padding_line();  // no row of its own (not reached by log, which updates the graph first)
}

std::string Graph::show_text(std::string_view text) {
    std::string out;
    size_t p = 0;
    while (p < text.size()) {
        size_t nl = text.find('\n', p);
        if (nl == std::string_view::npos) {
            out.append(text.substr(p));
            break;
        }
        out.append(text.substr(p, nl + 1 - p));
        p = nl + 1;
        if (p < text.size()) out += next_line();
    }
    const bool newline_terminated = !text.empty() && text.back() == '\n';
    if (state_ != State::padding) {
        if (!newline_terminated) out += "\n";
        for (;;) {
            out += next_line();
            if (state_ == State::padding) break;
            out += "\n";
        }
        if (newline_terminated) out += "\n";
    }
    return out;
}

}  // namespace bashkit::utils::git
