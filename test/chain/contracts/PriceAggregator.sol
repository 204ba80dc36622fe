// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// @notice A Chainlink AggregatorV3 as limits in dollars read it (test/chain/price-feeds.test.ts): the
/// answer and its round's updatedAt are set by the test, and it can be made to revert.
contract PriceAggregator {
    uint8 public immutable decimals;
    int256 private answer;
    uint256 private updatedAt;
    bool private broken;

    constructor(uint8 decimals_) {
        decimals = decimals_;
    }

    function setRound(int256 answer_, uint256 updatedAt_) external {
        answer = answer_;
        updatedAt = updatedAt_;
    }

    function setBroken(bool broken_) external {
        broken = broken_;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        require(!broken, "broken");
        return (1, answer, updatedAt, updatedAt, 1);
    }
}
